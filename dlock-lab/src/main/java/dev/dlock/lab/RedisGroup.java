package dev.dlock.lab;

import java.util.List;

/**
 * Redlock's independent Redis servers as one lab server: a server fault acts on all of them, and
 * the URL names them all.
 *
 * <p>Why a class of its own: the plain Redlock set and the one with a fake clock
 * ({@link FakeClockRedlock}) differ only in how node C is started and what closing leaves behind.
 */
class RedisGroup implements LabServer {
  /** The nodes, in the order the URL names them. */
  protected final List<RedisProcess> nodes;

  RedisGroup(List<RedisProcess> nodes) {
    this.nodes = List.copyOf(nodes);
  }

  @Override
  public String url() {
    return RedisProcess.redlockUrl(nodes);
  }

  @Override
  public List<Integer> ports() {
    return nodes.stream().map(RedisProcess::port).toList();
  }

  @Override
  public long pid() {
    return nodes.get(0).pid();
  }

  @Override
  public void pause() {
    nodes.forEach(RedisProcess::pause);
  }

  @Override
  public void resume() {
    nodes.forEach(RedisProcess::resume);
  }

  @Override
  public void restart() {
    nodes.forEach(RedisProcess::restart);
  }

  @Override
  public void close() {
    nodes.forEach(RedisProcess::close);
  }
}
