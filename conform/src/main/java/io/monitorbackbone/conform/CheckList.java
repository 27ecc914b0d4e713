package io.monitorbackbone.conform;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Every check of BRIEF.md's list, in the list's order (C20b after C20; there is no C31), and our stricter checks (C17+)
 * each right after the protocol-level check it goes beyond.
 */
final class CheckList {
    private CheckList() {}

    static List<Check> all() {
        List<Check> all = new ArrayList<>();
        all.addAll(AccessChecks.all());
        all.addAll(WriteChecks.all());
        all.addAll(DeliveryChecks.all());
        all.addAll(LeaseChecks.all());
        all.sort(Comparator.comparing(CheckList::order));
        return List.copyOf(all);
    }

    /** "C20b" sorts as 20.5, a stricter "C17+" right after its "C17" (17.2). */
    static double order(Check check) {
        String digits = check.id().substring(1);
        double extra = 0;
        if (digits.endsWith("+")) {
            digits = digits.substring(0, digits.length() - 1);
            extra += 0.2;
        }
        boolean suffixed = Character.isLetter(digits.charAt(digits.length() - 1));
        return Integer.parseInt(suffixed ? digits.substring(0, digits.length() - 1) : digits)
                + (suffixed ? 0.5 : 0)
                + extra;
    }
}
