package io.monitorbackbone.protocol.confidence;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * An unmodifiable list over an array that only this class fills, for the fold's bounded lists (a subject's place among
 * the last {@link Corroboration#MAX_SUBJECTS}, a claim among the last {@link TrackRecord#RECENT}). Each step of the
 * fold makes the next list in one copy of the array; an {@link java.util.ArrayList} edited and then passed through the
 * records' {@code List.copyOf} had made three (the list, its {@code toArray}, and {@code List.of}'s own copy), about a
 * tenth of a record's decode and fold. {@link #copyOf} keeps what {@code List.copyOf} promised the records: a list no
 * one else can change, without nulls; it equals, and hashes as, any list of the same elements.
 */
final class FrozenList<E> extends AbstractList<E> implements RandomAccess {
    private final Object[] elements;

    private FrozenList(Object[] elements) {
        this.elements = elements;
    }

    /** The list itself when it is a {@code FrozenList}, else {@link List#copyOf}. */
    static <E> List<E> copyOf(List<E> list) {
        return list instanceof FrozenList<E> ? list : List.copyOf(list);
    }

    /**
     * {@code list} without the element at {@code removeAt} (none when negative), with {@code last} after the rest, and
     * without its first elements past {@code max}. {@code list} is a record's list, so it holds no null.
     */
    static <E> List<E> movedToEnd(List<E> list, int removeAt, E last, int max) {
        Objects.requireNonNull(last, "last");
        Object[] from = elements(list);
        int kept = from.length - (removeAt >= 0 ? 1 : 0);
        int size = Math.min(kept + 1, max);
        // The kept elements copied: those from index skip on, counted without the removed one.
        int skip = kept + 1 - size;
        int count = size - 1;
        Object[] next = new Object[size];
        if (removeAt < 0) {
            System.arraycopy(from, skip, next, 0, count);
        } else {
            int before = Math.max(0, removeAt - skip);
            System.arraycopy(from, skip, next, 0, before);
            System.arraycopy(from, skip + before + 1, next, before, count - before);
        }
        next[count] = last;
        return new FrozenList<>(next);
    }

    /**
     * {@code list} (a record's list, so without nulls) with {@code element} at {@code index}, {@code padding} filling
     * any places before it.
     */
    static <E> List<E> with(List<E> list, int index, E element, E padding) {
        Objects.requireNonNull(element, "element");
        Object[] from = elements(list);
        Object[] next = Arrays.copyOf(from, Math.max(from.length, index + 1));
        if (index > from.length) {
            Arrays.fill(next, from.length, index, Objects.requireNonNull(padding, "padding"));
        }
        next[index] = element;
        return new FrozenList<>(next);
    }

    private static Object[] elements(List<?> list) {
        return list instanceof FrozenList<?> frozen ? frozen.elements : list.toArray();
    }

    @Override
    @SuppressWarnings("unchecked")
    public E get(int index) {
        return (E) elements[Objects.checkIndex(index, elements.length)];
    }

    @Override
    public int size() {
        return elements.length;
    }
}
