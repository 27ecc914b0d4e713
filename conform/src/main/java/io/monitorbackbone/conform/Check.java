package io.monitorbackbone.conform;

/**
 * One conformance check from BRIEF.md. Its body does its own setup through the public API, returns the one-line reason
 * it passed, and throws {@link CheckFailed} (or {@link CheckSkipped}) otherwise.
 */
record Check(String id, String title, Body body) {

    @FunctionalInterface
    interface Body {
        String run(Api api) throws Exception;
    }
}
