package dev.dlock.lab;

import java.util.Set;

/**
 * One cell of the lab's matrix: a scheme, the fault it faces, and the workload its workers run.
 *
 * @param scheme   a scheme id ({@code S7}, {@code S12}, ...)
 * @param fault    a fault id ({@code none}, {@code F1}, {@code F2}, ...)
 * @param workload {@code critical}, {@code flash} or {@code readwrite}
 */
public record CellSpec(String scheme, String fault, String workload) {
  /** Every fault id the injector knows. */
  public static final Set<String> FAULTS = Set.of("none", "F1", "F1-gap", "F2", "F3", "F3-aof", "F4", "F5",
      "F5-holder", "F6", "F6-maj", "F6-min", "F7", "F8", "skew");

  /** Every workload id the workers know. */
  public static final Set<String> WORKLOADS = Set.of("critical", "flash", "readwrite");

  /** Checks the ids. */
  public CellSpec {
    if (!FAULTS.contains(fault)) {
      throw new IllegalArgumentException("fault must be one of " + FAULTS + ", was '" + fault + "'");
    }
    if (!WORKLOADS.contains(workload)) {
      throw new IllegalArgumentException("workload must be one of " + WORKLOADS + ", was '" + workload + "'");
    }
  }

  /**
   * Whether the fault needs a server the lab started: it acts on the server (on Redlock, F7 steps a
   * node's clock), or on the network between the workers and it.
   */
  public boolean serverFault() {
    return fault.startsWith("F3") || fault.equals("F4") || fault.equals("F8") || partition() || ClockJump.onServer(this)
        || memberCrash();
  }

  /** Whether the fault kills one member of an ensemble ({@code F5}: the leader, {@code F5-holder}: the holder's). */
  public boolean memberCrash() {
    return fault.startsWith("F5");
  }

  /** Whether the fault cuts a worker off from some of the server's nodes ({@code F6}, {@code F6-maj}, {@code F6-min}). */
  public boolean partition() {
    return fault.startsWith("F6");
  }

  @Override
  public String toString() {
    return scheme + " x " + fault + ("critical".equals(workload) ? "" : " (" + workload + ")");
  }
}
