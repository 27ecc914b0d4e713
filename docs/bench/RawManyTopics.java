import java.io.FileReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.*;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** docs/benchmarks.md, 2026-12-06 (evening). usage: java -cp "<quarkus-app>/lib/main/*" docs/bench/RawManyTopics.java
 * CLIENT_PROPERTIES TOPICS RATE LABEL: the raw producer (acks=all, idempotent, linger 0) after writing one
 * record to each of TOPICS topics, then two 60 s windows of synchronous sends at RATE/s to the first; CPU-s of this
 * JVM and of the producer's I/O thread per window. */
public class RawManyTopics {
    public static void main(String[] a) throws Exception {
        Properties p = new Properties();
        try (FileReader r = new FileReader(a[0])) { p.load(r); }
        int n = Integer.parseInt(a[1]); double rate = Double.parseDouble(a[2]); String label = a[3];
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < n; i++) topics.add("rawmany." + label + ".t" + i);
        Map<String, Object> client = new HashMap<>();
        p.forEach((k, v) -> client.put((String) k, v));
        try (Admin admin = Admin.create(client)) {
            List<NewTopic> nt = new ArrayList<>();
            for (String t : topics) nt.add(new NewTopic(t, 1, (short) 1));
            for (int i = 0; i < nt.size(); i += 100) admin.createTopics(nt.subList(i, Math.min(nt.size(), i + 100))).all().get(120, TimeUnit.SECONDS);
        }
        Map<String, Object> c = new HashMap<>(client);
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        c.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        byte[] value = new byte[300];
        Arrays.fill(value, (byte) 'x');
        ThreadMXBean tm = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(c)) {
            for (String t : topics) producer.send(new ProducerRecord<>(t, "k".getBytes(), value)).get();
            Thread.sleep(30_000);
            for (int w = 0; w < 2; w++) {
                long io0 = ioCpu(tm), p0 = os.getProcessCpuTime(), t0 = System.nanoTime(); int sent = 0;
                while (System.nanoTime() - t0 < 60_000_000_000L) {
                    producer.send(new ProducerRecord<>(topics.get(0), "k".getBytes(), value)).get();
                    sent++;
                    long next = t0 + (long) (sent * 1e9 / rate);
                    long d = next - System.nanoTime();
                    if (d > 0) Thread.sleep(d / 1_000_000, (int) (d % 1_000_000));
                }
                System.out.printf("%s topics=%d window=%d sent=%d process_cpu_s=%.2f producer_io_thread_cpu_s=%.2f%n", label, n, w + 1, sent,
                        (os.getProcessCpuTime() - p0) / 1e9, (ioCpu(tm) - io0) / 1e9);
            }
        }
        try (Admin admin = Admin.create(client)) {
            admin.deleteTopics(topics).all().get(120, TimeUnit.SECONDS);
        }
    }
    static long ioCpu(ThreadMXBean tm) {
        long s = 0;
        for (Thread t : Thread.getAllStackTraces().keySet())
            if (t.getName().startsWith("kafka-producer-network-thread")) s += tm.getThreadCpuTime(t.getId());
        return s;
    }
}
