/** JMH benchmarks for roce4j. */
package org.roce4j.bench;
