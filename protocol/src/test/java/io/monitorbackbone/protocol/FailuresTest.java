package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class FailuresTest {
    @Test
    void aRefusalIsAnsweredAsItIsUnderItsCodesStatus() {
        ProtocolException refusal = ProtocolException.monitorNotFound();
        assertThat(Failures.protocolError(refusal)).isSameAs(refusal);
        assertThat(refusal.status()).isEqualTo(404);
        assertThat(refusal.toJson().toString())
                .isEqualTo("{\"code\":\"NOT_FOUND\",\"error\":\"monitor not found\",\"done\":[]}");
    }

    @Test
    void aPausedMonitorStaysUnavailable409() {
        ProtocolException paused = ProtocolException.of(ErrorCode.UNAVAILABLE, "the monitor is paused");
        assertThat(Failures.protocolError(paused).status()).isEqualTo(409);
    }

    @Test
    void wrappersOfAsynchronousCodeAreLookedThrough() {
        ProtocolException refusal = ProtocolException.ownerTokenRequired();
        assertThat(Failures.protocolError(new CompletionException(new ExecutionException(refusal))))
                .isSameAs(refusal);
        Throwable failed = catchThrowable(
                () -> CompletableFuture.failedFuture(refusal).thenApply(x -> x).join());
        assertThat(failed).isInstanceOf(CompletionException.class);
        assertThat(Failures.protocolError(failed)).isSameAs(refusal);
    }

    @Test
    void aServerFaultIs503UnavailableWithWhatItMeansForTheRequest() {
        ProtocolException e = Failures.protocolError(new CompletionException(
                new ServerFault("Kafka did not acknowledge the write to mp.obs.ci", new RuntimeException("secret"))));
        assertThat(e.status()).isEqualTo(503).isEqualTo(ErrorCode.SERVER_FAULT_STATUS);
        assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(e.code().rpcCode()).isEqualTo(-32017);
        assertThat(e.toJson().toString())
                .isEqualTo("{\"code\":\"UNAVAILABLE\",\"error\":\"Kafka did not acknowledge the "
                        + "write to mp.obs.ci; nothing was acknowledged, retry\",\"done\":[]}");
    }

    @Test
    void aServerFaultWithAnUnknownOutcomeSaysSo() {
        ProtocolException e = Failures.protocolError(
                ServerFault.outcomeUnknown("Kafka did not confirm the definition", "retry with the same id", null));
        assertThat(e.status()).isEqualTo(503);
        assertThat(e.toJson().toString())
                .isEqualTo("{\"code\":\"UNAVAILABLE\",\"error\":\"Kafka did not confirm the "
                        + "definition; retry with the same id\",\"done\":[],\"outcome\":\"unknown\"}");
        ProtocolException advised = Failures.protocolError(ServerFault.withAdvice("not created", "retry", null));
        assertThat(advised.toJson().has("outcome")).isFalse();
    }

    @Test
    void anythingElseIsAnInternalError500ThatNeverShowsTheFailuresText() {
        ProtocolException e = Failures.protocolError(
                new CompletionException(new IllegalStateException("token abc123 leaked into a message")));
        assertThat(e.status()).isEqualTo(500).isEqualTo(ErrorCode.INTERNAL_ERROR_STATUS);
        assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(e.toJson().toString())
                .isEqualTo(
                        "{\"code\":\"UNAVAILABLE\",\"error\":\"internal error: IllegalStateException\",\"done\":[]}");
        assertThat(Failures.protocolError(new NullPointerException()).getMessage())
                .isEqualTo("internal error: NullPointerException");
        assertThat(Failures.protocolError(new CompletionException(null)).getMessage())
                .isEqualTo("internal error: CompletionException");
        assertThat(Failures.protocolError(new StackOverflowError()).status()).isEqualTo(500);
    }

    @Test
    void everyOtherCodeTakesItsStatusFromTheTable() {
        for (ErrorCode code : ErrorCode.values()) {
            assertThat(Failures.protocolError(ProtocolException.of(code, "x")).status())
                    .isEqualTo(code.status());
        }
    }
}
