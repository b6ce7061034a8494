package org.roce4j.wire.pcap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * Iterates over what a reader's {@code read()} returns until it is empty; a failure is an
 * {@link UncheckedIOException} around it, as a {@link java.nio.file.DirectoryStream}'s iterator does.
 *
 * @param <T> what is read
 */
final class ReadingIterator<T> implements Iterator<T> {

    /** A reader's {@code read()}: the next item, or empty at a clean end. */
    @FunctionalInterface
    interface Read<T> {
        Optional<T> read() throws IOException;
    }

    private final Read<T> source;
    private T next;
    private boolean ended;

    ReadingIterator(Read<T> source) {
        this.source = source;
    }

    @Override
    public boolean hasNext() {
        if (next == null && !ended) {
            try {
                source.read().ifPresentOrElse(item -> next = item, () -> ended = true);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return next != null;
    }

    @Override
    public T next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        T item = next;
        next = null;
        return item;
    }
}
