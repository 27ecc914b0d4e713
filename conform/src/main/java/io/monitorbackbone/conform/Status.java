package io.monitorbackbone.conform;

/** A check's verdict. SKIP always comes with the reason the check could not be run. */
public enum Status {
    PASS,
    FAIL,
    SKIP
}
