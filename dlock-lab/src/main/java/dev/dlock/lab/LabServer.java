package dev.dlock.lab;

/**
 * A server the lab started on loopback, as a process of its own that faults act on: it can be
 * paused with SIGSTOP, resumed, and restarted on the same port.
 */
public interface LabServer extends AutoCloseable {
  /** The dlock lock URL of this server, as {@code LockClient.builder().url(..)} takes it. */
  String url();

  /**
   * The ports clients connect to, one a node, in the order the {@link #url()} names them: what a
   * partition ({@link Links}) puts its proxies in front of.
   */
  java.util.List<Integer> ports();

  /** The process id of the server's main process. */
  long pid();

  /** SIGSTOP to every process of the server: it keeps its sockets but answers nothing. */
  void pause();

  /** SIGCONT to every process {@link #pause} stopped. */
  void resume();

  /**
   * Kills the server with {@code kill -9} and starts it again on the same port and data directory;
   * returns once it answers again. What survives depends on the server's persistence.
   */
  void restart();

  @Override
  void close();
}
