package io.monitorbackbone.gateway.service.fake;

import io.monitorbackbone.gateway.service.LeaseDecisions;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import io.monitorbackbone.protocol.lease.LeaseReply;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** {@link LeaseDecisions} in memory: keeps every command sent and answers each as the test says (200 {} by default). */
public final class FakeLeaseDecisions implements LeaseDecisions {
    private final List<LeaseCommand> sent = new ArrayList<>();
    private Function<LeaseCommand, LeaseReply> answer = c -> new LeaseReply(200, Json.object(), null);

    @Override
    public synchronized LeaseReply decide(LeaseCommand command) {
        sent.add(command);
        return answer.apply(command);
    }

    public synchronized void answer(Function<LeaseCommand, LeaseReply> answer) {
        this.answer = answer;
    }

    public synchronized List<LeaseCommand> sent() {
        return List.copyOf(sent);
    }
}
