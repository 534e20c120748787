// Readiness probe for the dev Kafka broker (compiled by ../kafka.sh install).
// Usage: java -cp 'lib/*:probe' KafkaProbe <bootstrap> [timeoutMs] [--warmup]
// Exit 0 when the broker answers describeCluster + listTopics (i.e. the KRaft
// controller has elected itself and the broker is unfenced), 1 otherwise.
// --warmup additionally asks for the group and transaction coordinators, which
// makes the broker create __consumer_offsets / __transaction_state now instead
// of during the first test (clients then log "coordinator is loading" retries).
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class KafkaProbe {
  public static void main(String[] args) {
    String bootstrap = args.length > 0 ? args[0] : "127.0.0.1:19092";
    int timeoutMs = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
    boolean warmup = args.length > 2 && "--warmup".equals(args[2]);
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "dev-servers-probe");
    try (Admin admin = Admin.create(p)) {
      int nodes = admin.describeCluster().nodes().get(timeoutMs, TimeUnit.MILLISECONDS).size();
      int topics = admin.listTopics().names().get(timeoutMs, TimeUnit.MILLISECONDS).size();
      if (nodes < 1) {
        System.err.println("no broker registered yet");
        System.exit(1);
      }
      if (warmup) {
        warm("group coordinator", () ->
            admin.listConsumerGroupOffsets("dev-servers-warmup").partitionsToOffsetAndMetadata()
                .get(timeoutMs, TimeUnit.MILLISECONDS));
        // initTransactions() goes through the transaction coordinator and makes
        // the broker fetch its first block of producer ids from the controller
        // (otherwise the first idempotent producer gets COORDINATOR_LOAD_IN_PROGRESS).
        warm("transaction coordinator", () -> {
          Properties pp = new Properties();
          pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
          pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "dev-servers-warmup");
          pp.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
          pp.put(ProducerConfig.CLIENT_ID_CONFIG, "dev-servers-probe");
          try (KafkaProducer<byte[], byte[]> producer =
              new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
          }
          return null;
        });
      }
      System.out.println("ok nodes=" + nodes + " topics=" + topics);
      System.exit(0);
    } catch (Exception e) {
      System.err.println("not ready: " + e);
      System.exit(1);
    }
  }

  interface Call { Object run() throws Exception; }

  // Retry (up to ~30 s) until the coordinator answers anything other than
  // "loading"/"not available"; a definitive error such as "unknown
  // transactional id" means the coordinator is up.
  private static void warm(String what, Call call) {
    long deadline = System.currentTimeMillis() + 30_000;
    while (true) {
      try {
        call.run();
        return;
      } catch (Exception e) {
        String s = String.valueOf(e);
        boolean transientErr = s.contains("CoordinatorLoadInProgress") || s.contains("CoordinatorNotAvailable")
            || s.contains("Timeout") || s.contains("NotCoordinator");
        if (!transientErr) return;
        if (System.currentTimeMillis() > deadline) {
          System.err.println("warmup of " + what + " did not finish: " + s);
          return;
        }
        try { Thread.sleep(500); } catch (InterruptedException ie) { return; }
      }
    }
  }
}
