/** The {@code roce4j} command line. */
package org.roce4j.tools;
