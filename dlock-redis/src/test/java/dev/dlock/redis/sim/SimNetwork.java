package dev.dlock.redis.sim;

import dev.dlock.testkit.sim.Scheduler;
import java.util.HashMap;
import java.util.Map;

/**
 * Pub/sub between the server and the clients' channels. PUBLISH counts a subscriber while its
 * client lives; the message may still be lost after that (its connection dropped) or arrive late.
 */
final class SimNetwork implements Channels {
  private final Scheduler clock;
  private final double dropRate;
  private final long maxDelayMicros;
  private final Map<String, SimClient> subscribed = new HashMap<>();

  SimNetwork(Scheduler clock, double dropRate, long maxDelayMicros) {
    this.clock = clock;
    this.dropRate = dropRate;
    this.maxDelayMicros = maxDelayMicros;
  }

  void subscribe(String client, SimClient inbox) {
    subscribed.put(client, inbox);
  }

  void unsubscribe(String client) {
    subscribed.remove(client);
  }

  @Override
  public boolean publish(Published message) {
    SimClient to = subscribed.get(message.client());
    if (to == null) {
      return false;
    }
    if (clock.random().nextDouble() < dropRate) {
      clock.trace(() -> "  message " + message + " lost");
      return true;
    }
    // Mostly prompt; one message in five may lag up to the maximum delay.
    long bound = clock.random().nextInt(5) == 0 ? maxDelayMicros : 20_000;
    long delay = (long) (clock.random().nextDouble() * bound);
    clock.at(clock.now() + delay, () -> to.deliver(message));
    return true;
  }
}
