package io.monitorbackbone.gateway.service;

import java.util.concurrent.Executor;

/**
 * The pool the services' blocking calls run on: a request's call, a pull's reads between its waits. Its own type so
 * that it is injected by type, never mistaken for another executor; a test passes {@code Runnable::run}.
 */
@FunctionalInterface
public interface Work extends Executor {}
