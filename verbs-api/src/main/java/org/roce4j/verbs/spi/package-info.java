/** The service-provider interface a Verbs backend implements. */
package org.roce4j.verbs.spi;
