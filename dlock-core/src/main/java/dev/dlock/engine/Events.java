package dev.dlock.engine;

import dev.dlock.LeaseLostException;
import dev.dlock.LockListener;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Fans events out to the client's listeners; a failing listener is logged and never breaks locking. */
final class Events implements LockListener {
  private static final Logger log = LoggerFactory.getLogger(Events.class);
  private final List<LockListener> listeners;

  Events(List<LockListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  private void each(Consumer<LockListener> event) {
    for (LockListener l : listeners) {
      try {
        event.accept(l);
      } catch (RuntimeException e) {
        log.warn("dlock listener {} failed", l, e);
      }
    }
  }

  @Override
  public void acquired(String name, long token, Duration waited) {
    each(l -> l.acquired(name, token, waited));
  }

  @Override
  public void released(String name, long token, Duration held) {
    each(l -> l.released(name, token, held));
  }

  @Override
  public void renewed(String name, long token) {
    each(l -> l.renewed(name, token));
  }

  @Override
  public void lost(String name, long token, LeaseLostException reason) {
    each(l -> l.lost(name, token, reason));
  }

  @Override
  public void waited(String name) {
    each(l -> l.waited(name));
  }

  @Override
  public void woken(String name) {
    each(l -> l.woken(name));
  }

  @Override
  public void timedOut(String name, Duration waited) {
    each(l -> l.timedOut(name, waited));
  }

  @Override
  public void abandoned(String name, long token, String threadName) {
    each(l -> l.abandoned(name, token, threadName));
  }
}
