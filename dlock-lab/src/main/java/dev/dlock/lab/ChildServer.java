package dev.dlock.lab;

import java.nio.file.Path;
import java.util.List;
import java.util.function.BiFunction;

/**
 * A lab server run as a process on 127.0.0.1 with a port and a data directory of its own: the
 * lifecycle every such server shares. A subclass says only how it {@link #launch launches} and
 * what it must {@link #release} after a kill.
 *
 * <p>Why a base class: Redis, ZooKeeper and PostgreSQL differ in how they start and answer, not in
 * how they are paused, killed, restarted on the same port and cleaned up; one copy of that keeps
 * the three servers short and alike.
 */
abstract class ChildServer implements LabServer {
  /** The server's port on 127.0.0.1. */
  protected final int port;
  /** The server's data directory, deleted by {@link #close}. */
  protected final Path dir;
  private final String name;
  private Process process;
  private long pid;
  private List<Long> paused = List.of();

  /** {@code name} names the server in errors, as {@code "redis-server"}. */
  protected ChildServer(String name, int port, Path dir) {
    this.name = name;
    this.port = port;
    this.dir = dir;
  }

  /**
   * Creates a server with {@code create} on a free port and a new directory under {@code baseDir}
   * named {@code prefix-<port>-...}, launches it and registers it with the {@link Reaper}. Tries
   * three ports: another process may take a free port before the server does.
   */
  static <S extends ChildServer> S startOnFreePort(Path baseDir, String prefix, BiFunction<Integer, Path, S> create) {
    IllegalStateException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      int port = Procs.freePort();
      S server = create.apply(port, Procs.createDir(baseDir, prefix + "-" + port + "-"));
      try {
        server.launch();
        Reaper.register(server);
        return server;
      } catch (IllegalStateException e) {
        server.close();
        last = e;
      }
    }
    throw last;
  }

  /**
   * Starts the server on {@link #port} and {@link #dir}, calls {@link #started} as soon as it
   * knows the server's pid, and returns once it answers.
   *
   * @throws IllegalStateException if it cannot start or does not answer in time
   */
  protected abstract void launch();

  /** What must be let go of after a kill, before a relaunch or a delete; nothing by default. */
  protected void release() {}

  /** Records the server's process: a child of this JVM, kept so that its pipes stay open. */
  protected final synchronized void started(Process process) {
    this.process = process;
    this.pid = process.pid();
  }

  /** Records the pid of a server that is not a child of this JVM. */
  protected final synchronized void started(long pid) {
    this.process = null;
    this.pid = pid;
  }

  /** The port the server listens on, on 127.0.0.1. */
  public int port() {
    return port;
  }

  @Override
  public List<Integer> ports() {
    return List.of(port);
  }

  @Override
  public synchronized long pid() {
    return pid;
  }

  @Override
  public synchronized void pause() {
    paused = Procs.pauseTree(pid);
  }

  @Override
  public synchronized void resume() {
    Procs.resumeAll(paused);
    paused = List.of();
  }

  @Override
  public synchronized void restart() {
    crash();
    launch();
  }

  /**
   * kill -9 of the server's process tree; returns once its port is closed. The data directory
   * stays, for {@link #launch} to start it again on.
   */
  synchronized void crash() {
    kill();
    Procs.awaitClosed(name, port);
  }

  @Override
  public synchronized void close() {
    Reaper.unregister(this);
    kill();
    Procs.deleteTree(dir);
  }

  /** kill -9 of the server's process tree, then {@link #release}. */
  private void kill() {
    if (pid > 0) {
      Procs.killTree(pid);
    }
    paused = List.of();
    release();
  }
}
