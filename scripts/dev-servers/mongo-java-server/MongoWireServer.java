import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;

import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.h2.H2Collection;
import de.bwaldvogel.mongo.backend.h2.H2Database;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;

/**
 * The Mongo-wire test server of scripts/dev-servers/mongo-java-server.sh: bwaldvogel's
 * mongo-java-server on its H2 MVStore backend (a file; data survives a restart) or in memory.
 *
 *   java -cp 'lib/*:classes' MongoWireServer serve HOST PORT [FILE]   (no FILE: in memory)
 *   java -cp 'lib/*:classes' MongoWireServer probe HOST PORT TIMEOUT_MS (exit 0 once it answers a ping)
 *
 * One change to the library's query planning: it answers a query from a unique index only when
 * the query names exactly that index's keys, so `{_id: x, position: {$lt: p}}` (the read store's
 * position-guarded write, made for every projected document) scanned the whole collection and
 * the lag grew with it. Here the index narrows any query that names all its keys with values it
 * can look up, and the library's matcher checks every candidate against the whole query, so the
 * answers are the same.
 */
public final class MongoWireServer {
  /** The unique indexes of one collection, and the candidates one of them gives for a query. */
  static final class UniqueLookups<P> {
    private final List<Index<P>> indexes = new CopyOnWriteArrayList<>();

    void track(Index<P> index) {
      if (index.isUnique() && indexes.stream().noneMatch(known -> known.getName().equals(index.getName()))) indexes.add(index);
    }

    /** The positions of the documents that can match, or null when no unique index narrows the query. */
    Iterable<P> candidates(Document query) {
      for (Index<P> index : indexes) {
        Document narrowed = new Document();
        for (IndexKey key : index.getKeys()) {
          if (!query.containsKey(key.getKey())) {
            narrowed = null;
            break;
          }
          narrowed.put(key.getKey(), query.get(key.getKey()));
        }
        // (A query of exactly the index's keys is the library's own case.)
        if (narrowed != null && narrowed.size() < query.size() && index.canHandle(narrowed)) return index.getPositions(narrowed);
      }
      return null;
    }

    /** The answer from the candidates an index gives, or the library's own when none narrows the query. */
    QueryResult answer(Document query, Function<Iterable<P>, QueryResult> fromCandidates, Supplier<QueryResult> otherwise) {
      Iterable<P> candidates = candidates(query);
      return candidates != null ? fromCandidates.apply(candidates) : otherwise.get();
    }
  }

  static final class MemoryLookupCollection extends MemoryCollection {
    private final UniqueLookups<Integer> lookups = new UniqueLookups<>();

    MemoryLookupCollection(MongoDatabase database, String name, CollectionOptions options, CursorRegistry cursors) {
      super(database, name, options, cursors);
    }

    @Override
    public void addIndex(Index<Integer> index) {
      super.addIndex(index);
      lookups.track(index);
    }

    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int skip, int limit, int batchSize, Document fields) {
      return lookups.answer(query, candidates -> matchDocuments(query, candidates, orderBy, skip, limit, batchSize, fields),
        () -> super.queryDocuments(query, orderBy, skip, limit, batchSize, fields));
    }
  }

  static final class H2LookupCollection extends H2Collection {
    private final UniqueLookups<Object> lookups = new UniqueLookups<>();

    H2LookupCollection(MongoDatabase database, String name, CollectionOptions options, MVMap<Object, Document> data,
                       MVMap<String, Object> meta, CursorRegistry cursors) {
      super(database, name, options, data, meta, cursors);
    }

    @Override
    public void addIndex(Index<Object> index) {
      super.addIndex(index);
      lookups.track(index);
    }

    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int skip, int limit, int batchSize, Document fields) {
      return lookups.answer(query, candidates -> matchDocuments(query, candidates, orderBy, skip, limit, batchSize, fields),
        () -> super.queryDocuments(query, orderBy, skip, limit, batchSize, fields));
    }
  }

  private static MongoBackend memoryBackend() {
    return new MemoryBackend() {
      @Override
      public MemoryDatabase openOrCreateDatabase(String name) {
        return new MemoryDatabase(name, getCursorRegistry()) {
          @Override
          protected MemoryCollection openOrCreateCollection(String collection, CollectionOptions options) {
            return new MemoryLookupCollection(this, collection, options, cursorRegistry);
          }
        };
      }
    };
  }

  /** The same map names as the library's H2Database ("databases." and "meta." + namespace), so its files stay compatible. */
  private static MongoBackend h2Backend(String file) {
    MVStore store = new MVStore.Builder().fileName(file).compress().open();
    return new H2Backend(store) {
      @Override
      protected MongoDatabase openOrCreateDatabase(String name) {
        return new H2Database(name, store, getCursorRegistry()) {
          @Override
          protected MongoCollection<Object> openOrCreateCollection(String collection, CollectionOptions options) {
            String namespace = getFullCollectionNamespace(collection);
            return new H2LookupCollection(this, collection, options, store.openMap("databases." + namespace),
              store.openMap("meta." + namespace), cursorRegistry);
          }
        };
      }
    };
  }

  private static void serve(String host, int port, String file) throws InterruptedException {
    MongoServer server = new MongoServer(file.isEmpty() ? memoryBackend() : h2Backend(file));
    server.bind(host, port);
    System.err.println("mongo-java-server listening on " + host + ":" + port + (file.isEmpty() ? " (in memory)" : " (H2 file " + file + ")"));
    // SIGTERM: close the backend, which writes the H2 store's last changes to its file.
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
    Thread.currentThread().join();
  }

  /** One OP_MSG {ping: 1, $db: "admin"}; exit 0 when an OP_MSG reply comes back. */
  private static void probe(String host, int port, int timeoutMs) {
    byte[] ping = "ping".getBytes(StandardCharsets.US_ASCII);
    byte[] db = "$db".getBytes(StandardCharsets.US_ASCII);
    byte[] admin = "admin".getBytes(StandardCharsets.US_ASCII);
    int bsonLength = 4 + (1 + ping.length + 1 + 4) + (1 + db.length + 1 + 4 + admin.length + 1) + 1;
    ByteBuffer message = ByteBuffer.allocate(16 + 4 + 1 + bsonLength).order(ByteOrder.LITTLE_ENDIAN);
    message.putInt(message.capacity()).putInt(1).putInt(0).putInt(2013).putInt(0).put((byte) 0);
    message.putInt(bsonLength);
    message.put((byte) 0x10).put(ping).put((byte) 0).putInt(1);
    message.put((byte) 0x02).put(db).put((byte) 0).putInt(admin.length + 1).put(admin).put((byte) 0);
    message.put((byte) 0);
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), timeoutMs);
      socket.setSoTimeout(timeoutMs);
      OutputStream out = socket.getOutputStream();
      out.write(message.array());
      out.flush();
      byte[] header = new byte[16];
      new DataInputStream(socket.getInputStream()).readFully(header);
      int opCode = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getInt(12);
      System.exit(opCode == 2013 ? 0 : 1);
    } catch (Exception error) {
      System.exit(1);
    }
  }

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "";
    if (mode.equals("serve") && args.length >= 3) {
      serve(args[1], Integer.parseInt(args[2]), args.length > 3 ? args[3] : "");
    } else if (mode.equals("probe") && args.length == 4) {
      probe(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
    } else {
      System.err.println("usage: MongoWireServer serve HOST PORT [H2_FILE] | probe HOST PORT TIMEOUT_MS");
      System.exit(2);
    }
  }
}
