package io.monitorbackbone.protocol.request;

import static io.monitorbackbone.protocol.request.Bodies.body;
import static io.monitorbackbone.protocol.request.Bodies.refused;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CompactTest {
    @Test
    void aCompactionNamesASeqAndPerhapsAMonitor() {
        assertThat(Compact.parse(body("{\"upto_seq\":10,\"monitor\":\"w-1\"}"))).isEqualTo(new Compact(10, "w-1"));
        assertThat(Compact.parse(body("{\"upto_seq\":\"10\"}"))).isEqualTo(new Compact(10, null));
    }

    @Test
    void theSeqIsANonNegativeInteger() {
        refused(
                () -> Compact.parse(body("{}")),
                "{\"code\":\"INVALID\",\"error\":\"cursor must be a non-negative integer\",\"done\":[],\"cursor\":null}");
        for (String seq : List.of("-1", "2.5", "\"ten\"")) {
            refused(
                    () -> Compact.parse(body("{\"upto_seq\":" + seq + "}")),
                    "{\"code\":\"INVALID\",\"error\":\"cursor must be a non-negative integer\",\"done\":[],\"cursor\":"
                            + seq + "}");
        }
    }

    @Test
    void aRequestRoundTripsThroughItsJson() {
        for (Compact r : List.of(new Compact(3, "w-1"), new Compact(0, null))) {
            assertThat(Compact.parse(r.toJson())).isEqualTo(r);
        }
    }
}
