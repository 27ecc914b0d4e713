package io.monitorbackbone.protocol.confidence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The fold's one-copy list steps against the ArrayList edits they replaced. */
class FrozenListTest {
    @Test
    void movingToTheEndIsRemoveAddAndDropTheFirstPastTheBound() {
        SplittableRandom random = new SplittableRandom(5);
        List<Integer> model = new ArrayList<>();
        List<Integer> frozen = List.of();
        int max = 8;
        for (int step = 0; step < 5_000; step++) {
            int removeAt = model.isEmpty() || random.nextBoolean() ? -1 : random.nextInt(model.size());
            int last = random.nextInt(1_000);
            // What Corroboration.apply did with an ArrayList.
            List<Integer> next = new ArrayList<>(model);
            if (removeAt >= 0) {
                next.remove(removeAt);
            }
            next.add(last);
            if (next.size() > max) {
                next.remove(0);
            }
            model = next;
            frozen = FrozenList.movedToEnd(frozen, removeAt, last, max);
            assertThat(frozen).containsExactlyElementsOf(model);
            assertThat(frozen).isEqualTo(model).isEqualTo(List.copyOf(model));
            assertThat(frozen.hashCode()).isEqualTo(List.copyOf(model).hashCode());
        }
        assertThat(model).hasSize(max);
    }

    @Test
    void settingPadsThePlacesBeforeTheIndex() {
        SplittableRandom random = new SplittableRandom(9);
        List<String> model = new ArrayList<>();
        List<String> frozen = List.of();
        for (int step = 0; step < 2_000; step++) {
            int index = random.nextInt(model.size() + 3);
            String element = "e" + step;
            // What TrackRecord's bump did with an ArrayList.
            List<String> next = new ArrayList<>(model);
            while (next.size() <= index) {
                next.add("zero");
            }
            next.set(index, element);
            model = next;
            frozen = FrozenList.with(frozen, index, element, "zero");
            assertThat(frozen).isEqualTo(model);
        }
    }

    @Test
    void itIsUnmodifiableWithoutNullsAndCopiedOnlyWhenItIsNotOne() {
        List<String> frozen = FrozenList.movedToEnd(List.of("a", "b"), 0, "c", 4);
        assertThat(frozen).containsExactly("b", "c");
        assertThatThrownBy(() -> frozen.add("d")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> frozen.set(0, "d")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> frozen.remove(0)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> frozen.get(2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(FrozenList.copyOf(frozen)).isSameAs(frozen);

        List<String> mutable = new ArrayList<>(List.of("x"));
        List<String> copy = FrozenList.copyOf(mutable);
        mutable.add("y");
        assertThat(copy).containsExactly("x");
        assertThatThrownBy(() -> FrozenList.movedToEnd(List.of("a"), -1, null, 4))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> FrozenList.with(List.of("a"), 3, "b", null)).isInstanceOf(NullPointerException.class);
    }
}
