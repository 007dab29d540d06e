package dev.dlock.lab;

import java.util.ArrayList;
import java.util.List;

/**
 * A partition of a ZooKeeper ensemble around a holder that talks to member {@code s}: which of the
 * holder's paths go silent ({@link Links#cut}) and which member loses its paths to the other
 * members ({@link ZooKeeperEnsemble#isolate}).
 *
 * <p>Why members too: the members talk to each other. Cutting only the holder's paths would leave
 * its server in the quorum, still serving the holder; a real partition also splits the ensemble.
 *
 * @param holderCut the members the holder can no longer reach (indexes from 0)
 * @param isolated  the member cut off from the other members, or -1 for none
 */
record EnsembleCut(List<Integer> holderCut, int isolated) {
  /**
   * The cut of {@code fault} for a holder on member {@code s}:
   * <ul>
   *   <li>{@code F6}: the holder reaches no member; the members keep their quorum.</li>
   *   <li>{@code F6-min}: the holder reaches only {@code s}, and {@code s} is cut off from the
   *       others: the holder is on the minority side.</li>
   *   <li>{@code F6-maj}: a follower other than {@code s} is cut off from the others and from the
   *       holder, which keeps {@code s} and the leader (or {@code s} is the leader): the holder is
   *       on the majority side, which keeps its leader. A follower rather than the leader, so that
   *       the majority needs no election, which would suspend every client of it
   *       ({@code F5} is the leader's loss).</li>
   * </ul>
   *
   * @param s      the member the holder talks to
   * @param leader the member that leads
   * @param size   how many members
   */
  static EnsembleCut of(String fault, int s, int leader, int size) {
    if (size < 3 || s < 0 || s >= size || leader < 0 || leader >= size) {
      throw new IllegalArgumentException("need 3 or more members and s, leader among them; size " + size
          + ", s " + s + ", leader " + leader);
    }
    List<Integer> others = new ArrayList<>();
    for (int n = 0; n < size; n++) {
      if (n != s) {
        others.add(n);
      }
    }
    return switch (fault) {
      case "F6" -> {
        List<Integer> all = new ArrayList<>(others);
        all.add(s);
        all.sort(null);
        yield new EnsembleCut(List.copyOf(all), -1);
      }
      case "F6-min" -> new EnsembleCut(List.copyOf(others), s);
      case "F6-maj" -> {
        int third = others.stream().filter(n -> n != leader).findFirst().orElseThrow();
        yield new EnsembleCut(List.of(third), third);
      }
      default -> throw new IllegalArgumentException("fault must be F6, F6-maj or F6-min, was '" + fault + "'");
    };
  }
}
