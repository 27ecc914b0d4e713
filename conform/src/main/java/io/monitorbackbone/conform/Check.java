package io.monitorbackbone.conform;

/**
 * One conformance check from BRIEF.md. Its body does its own setup through the public API, returns the one-line reason
 * it passed, and throws {@link CheckFailed} (or {@link CheckSkipped}) otherwise.
 *
 * @param stricter true for a check of ours that asks more than the protocol's suite does (its id ends in {@code +}, e.g.
 *                 {@code C17+}): reported as "stricter than the protocol", and its FAIL does not fail the run
 */
record Check(String id, String title, boolean stricter, Body body) {

    Check(String id, String title, Body body) {
        this(id, title, false, body);
    }

    /** A check stricter than the protocol's, beside the protocol-level check {@code of}: its id is {@code of + "+"}. */
    static Check stricter(String of, String title, Body body) {
        return new Check(of + "+", title, true, body);
    }

    @FunctionalInterface
    interface Body {
        String run(CheckClient api) throws Exception;
    }
}
