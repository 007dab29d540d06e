package dev.dlock.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One run of one cell: starts the workers, lets them go together, injects the fault at its moment,
 * waits for them to finish, and checks their histories. The fault's window is timed here and
 * written to a history of its own ({@code injector}), on the same clock as the workers'.
 *
 * <p>Everything it acts on is handed in: the workers' arguments, the server (or {@code null} when
 * the scheme runs on a server the lab did not start), the resource's connection.
 */
final class CellRun {
  private static final long READY_NANOS = TimeUnit.SECONDS.toNanos(60);
  private static final long MOMENT_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final CellSpec cell;
  private final int run;
  private final LabSettings settings;
  private final String schemeUrl;
  private final LabServer server;
  private final String resourceUrl;
  private final Connection resource;
  private final Path dir;
  private final Object monitor = new Object();
  private final List<WorkerProcess> workers = new ArrayList<>();
  private final List<WorkerProcess> killed = new ArrayList<>();
  private Links links;
  private ClockJump clockJump;

  CellRun(CellSpec cell, int run, LabSettings settings, String schemeUrl, LabServer server, String resourceUrl,
      Connection resource, Path dir) {
    this.cell = cell;
    this.run = run;
    this.settings = settings;
    this.schemeUrl = schemeUrl;
    this.server = server;
    this.resourceUrl = resourceUrl;
    this.resource = resource;
    this.dir = dir;
  }

  CellResult run() throws IOException, SQLException, InterruptedException {
    Files.createDirectories(dir);
    boolean flash = cell.workload().equals("flash");
    Resource.reset(resource, settings.stock());
    long start;
    long end;
    try (History injector = History.append(dir.resolve("injector.jsonl"), "injector")) {
      if (cell.partition() || ClockJump.onServer(cell) || cell.fault().equals("F5-holder")) {
        links = Links.open(schemeUrl, server.ports(), settings.workers());
      }
      if (cell.fault().equals("F7")) {
        clockJump = ClockJump.open(cell, server, dir, settings.lease());
      }
      for (int i = 1; i <= settings.workers(); i++) {
        workers.add(WorkerProcess.start("w" + i, workerArgs(i), dir, monitor,
            clockJump == null ? Map.of() : clockJump.environment(i)));
      }
      awaitAll(WorkerProcess::ready, READY_NANOS, "READY");
      if (clockJump != null) {
        clockJump.cut(links, settings.workers());
      }
      start = System.nanoTime();
      for (WorkerProcess w : workers) {
        w.go();
      }
      inject(injector, start);
      // The run lasts its duration, and at least a lease and a second past the fault, so that
      // recovery (or its absence) is seen before the workers stop.
      long endAt = Math.max(start + settings.duration().toNanos(),
          System.nanoTime() + settings.lease().plusSeconds(1).toNanos());
      TimeUnit.NANOSECONDS.sleep(endAt - System.nanoTime());
      for (WorkerProcess w : workers) {
        w.end();
      }
      awaitAll(WorkerProcess::ended, TimeUnit.SECONDS.toNanos(30), "the end of the run");
      end = System.nanoTime();
    } finally {
      for (WorkerProcess w : workers) {
        w.process().destroyForcibly();
      }
      if (links != null) {
        links.close();
      }
    }
    for (WorkerProcess w : workers) {
      if (w.process().waitFor(10, TimeUnit.SECONDS) && w.process().exitValue() != 0 && !killed.contains(w)) {
        throw new IllegalStateException(cell + ": worker " + w.name() + " failed with exit "
            + w.process().exitValue() + "; its stderr:\n" + w.stderrTail());
      }
    }
    List<Event> events = new ArrayList<>(History.read(dir.resolve("injector.jsonl")));
    for (WorkerProcess w : workers) {
      Path h = dir.resolve(w.name() + ".jsonl");
      if (Files.exists(h)) {
        events.addAll(History.read(h));
      }
    }
    RunInfo info = new RunInfo(cell.scheme(), cell.fault(), cell.workload(), run, start, end,
        settings.lease().toNanos(), flash ? settings.stock() : -1, flash ? Resource.stock(resource) : -1);
    return Checker.check(info, events);
  }

  private List<String> workerArgs(int i) {
    String name = "w" + i;
    List<String> args = new ArrayList<>(List.of("--scheme", cell.scheme(), "--url",
        links == null ? schemeUrl : links.url(i), "--process", name,
        "--history", dir.resolve(name + ".jsonl").toString(), "--workload", cell.workload(),
        "--lock", lock(),
        "--lease-ms", Long.toString(settings.lease().toMillis()),
        "--wait-ms", Long.toString(settings.acquireWait().toMillis()),
        "--work-ms", Long.toString(settings.work().toMillis()),
        "--duration-ms", Long.toString(settings.duration().plusSeconds(60).toMillis()),
        "--resource", resourceUrl));
    if (cell.fault().equals("skew") && i == 2) {
      // Far enough ahead that every lock it sees looks expired by its clock.
      args.addAll(List.of("--clock-offset-ms", Long.toString(settings.lease().toMillis() * 3)));
    }
    if (i == 1 && (cell.fault().equals("F1-gap") || cell.fault().equals("F4") || pausesAtGap())) {
      args.addAll(List.of("--gap", "--gap-after-ms", Long.toString(settings.faultAt().toMillis())));
      if (cell.fault().equals("F4")) {
        // Worker 1 stays in the grant the replica never saw until told of its loss: dlock tells it
        // at its reconnect to the promoted replica, or at the latest at its deadline, within a lease.
        args.addAll(List.of("--gap-ms", Long.toString(settings.lease().toMillis())));
      } else if (cell.partition() || cell.memberCrash()) {
        args.addAll(List.of("--gap-ms", Long.toString(settings.pause().toMillis())));
      } else if (ClockJump.onServer(cell)) {
        // Kleppmann's holder: it stays its whole gap, whatever its lock tells it, then writes.
        args.addAll(List.of("--gap-ms", Long.toString(settings.pause().toMillis()), "--gap-blind"));
      }
      if (cell.scheme().equals("S4") && pausesAtGap()) {
        args.add("--gap-before-write"); // S4's own gap is for its kill (F1-gap)
      }
    }
    if (cell.workload().equals("readwrite")) {
      args.addAll(List.of("--role", i == 1 ? "writer" : "reader"));
    }
    return args;
  }

  /** The lock every worker of the run takes. */
  private String lock() {
    return ("lab-" + cell.scheme() + "-" + cell.fault() + "-" + run).replaceAll("[^A-Za-z0-9-]", "-");
  }

  private void inject(History injector, long start) throws InterruptedException {
    String fault = cell.fault();
    if (fault.equals("none") || fault.equals("skew")) {
      return;
    }
    if (fault.equals("F4")) {
      // The cut comes at GO, before worker 1's gap arms at faultAt: the grant it holds there is one
      // the replica never saw.
      Failover.inject(server, injector, workers.get(0), monitor, lock(), settings);
      return;
    }
    TimeUnit.NANOSECONDS.sleep(start + settings.faultAt().toNanos() - System.nanoTime());
    if (fault.equals("F7")) {
      if (ClockJump.onServer(cell)) {
        await(WorkerProcess::atGap, "worker 1 holding the lock on nodes A, B and C");
      }
      clockJump.jump(injector);
      return;
    }
    if (fault.equals("F1-gap")) {
      WorkerProcess w = await(WorkerProcess::atGap, "a worker between SETNX and EXPIRE");
      kill(injector, w);
      return;
    }
    WorkerProcess holder = pausesAtGap() ? await(WorkerProcess::atGap, "a worker at the gap of its scheme")
        : await(WorkerProcess::holding, "a worker inside its critical section");
    switch (fault) {
      case "F1" -> kill(injector, holder);
      case "F2" -> pause(injector, holder);
      case "F5", "F5-holder" -> crashMember(injector, holder);
      case "F6", "F6-maj", "F6-min" -> partition(injector, holder);
      case "F8" -> {
        server.pause();
        injector.log("fault", "invoke", "", -1, "F8 server");
        try {
          TimeUnit.NANOSECONDS.sleep(settings.pause().toNanos());
        } finally {
          server.resume();
          injector.log("fault", "ok", "", -1, "F8 server");
        }
      }
      default -> {
        injector.log("fault", "invoke", "", -1, fault + " server");
        server.restart();
        injector.log("fault", "ok", "", -1, fault + " server");
      }
    }
  }

  /**
   * Cuts the holder off from the server's nodes while the others still reach them all: from every
   * node ({@code F6}), from all but a majority ({@code F6-maj}) or all but a minority
   * ({@code F6-min}). The cut lasts a pause and until another worker holds, then heals.
   */
  private void partition(History injector, WorkerProcess holder) throws InterruptedException {
    int nodes = links.nodes();
    int kept = switch (cell.fault()) {
      case "F6-maj" -> nodes / 2 + 1;
      case "F6-min" -> nodes / 2;
      default -> 0;
    };
    List<Integer> cut = new ArrayList<>();
    for (int n = kept; n < nodes; n++) {
      cut.add(n);
    }
    int worker = workers.indexOf(holder) + 1;
    ZooKeeperEnsemble zk = server instanceof ZooKeeperEnsemble e ? e : null;
    EnsembleCut split = null;
    if (zk != null) { // an ensemble's members talk to each other too: split them as well
      int s = holderMember(holder);
      int leader = zk.leader();
      split = EnsembleCut.of(cell.fault(), s, leader, nodes);
      cut = split.holderCut();
      injector.log("fault", "info", "", -1, cell.fault() + " holder on member" + (s + 1) + ", member"
          + (leader + 1) + " leads, " + (split.isolated() < 0 ? "no member" : "member" + (split.isolated() + 1))
          + " isolated");
    }
    links.cut(worker, cut);
    if (split != null && split.isolated() >= 0) {
      zk.isolate(split.isolated());
    }
    String what = cell.fault() + " " + holder.name();
    injector.log("fault", "invoke", "", -1, what);
    try {
      TimeUnit.NANOSECONDS.sleep(settings.pause().toNanos());
      awaitNewHoldBesides(holder);
    } finally {
      links.heal();
      if (zk != null) {
        zk.heal();
      }
      injector.log("fault", "ok", "", -1, what);
    }
  }

  /**
   * kill -9 of one member of the ensemble while the holder is in its hold: the leader ({@code F5})
   * or the member the holder talks to ({@code F5-holder}); then starts it again, and the window
   * ends once it serves. Then waits for the holder to leave its hold: a lock that outlived the
   * fault is let go before the run ends, so the next grant is seen.
   */
  private void crashMember(History injector, WorkerProcess holder) throws InterruptedException {
    if (!(server instanceof ZooKeeperEnsemble zk)) {
      throw new IllegalStateException(cell + ": " + cell.fault() + " kills a member of a ZooKeeper ensemble;"
          + " the server is " + server);
    }
    int member = cell.fault().equals("F5") ? zk.leader() : holderMember(holder);
    String what = cell.fault() + " member" + (member + 1);
    injector.log("fault", "invoke", "", -1, what);
    zk.kill(member);
    zk.start(member);
    injector.log("fault", "ok", "", -1, what);
    long deadline = System.nanoTime() + settings.pause().plus(settings.lease()).toNanos();
    synchronized (monitor) {
      while (holder.holding() && System.nanoTime() - deadline < 0) {
        TimeUnit.NANOSECONDS.timedWait(monitor, deadline - System.nanoTime());
      }
    }
  }

  /** The member (index into the server's ports) {@code holder} has a connection open to. */
  private int holderMember(WorkerProcess holder) {
    return links.node(workers.indexOf(holder) + 1).orElseThrow(() -> new IllegalStateException(cell
        + ": the holder " + holder.name() + " has no connection open to any member"));
  }

  /**
   * A holder's pause, its partition, its node's clock jump (F7 on Redlock) or the crash of a server
   * of its ensemble lands where it hurts most: right before its write (the articles' GC pause), or,
   * for S8-wrong, between its GET and its DEL. S4's own gap, between SETNX and EXPIRE, is for its
   * kill (F1-gap); its pause lands before its write ({@code --gap-before-write}). Why at a gap at
   * all: a holder picked by what it last said may have left its hold by the time a forked
   * {@code kill -STOP} reaches it (tens of ms on a loaded machine), and be paused outside it.
   */
  private boolean pausesAtGap() {
    return cell.fault().equals("F2") || cell.partition() || ClockJump.onServer(cell) || cell.memberCrash();
  }

  private void kill(History injector, WorkerProcess w) {
    killed.add(w);
    Faults.kill(w.pid());
    injector.log("fault", "invoke", "", -1, cell.fault() + " " + w.name());
    injector.log("fault", "ok", "", -1, cell.fault() + " " + w.name());
  }

  /**
   * F2, the articles' GC pause: SIGSTOP of the holder for two leases and until another worker enters
   * a new hold. That worker is then asked to stay in a hold ({@code HOLD}) and, once it says it
   * does, the holder wakes; the worker is let go ({@code FREE}) once the holder has released, or
   * half a lease later. So the holder's late write and release land inside someone else's hold.
   * Why: without it they raced the new hold's 40 ms against the ENTER's trip to this process, the
   * CONT and the holder's rest of work, and on a loaded CI machine lost now and then. Why half a
   * lease: a woken holder on a loaded machine took 160 ms to release (CI, S7), past the tenth of a
   * lease this waited before; the kept worker took its lease just before the wake, so half a lease
   * more still ends inside it.
   */
  private void pause(History injector, WorkerProcess holder) throws InterruptedException {
    Faults.stop(holder.pid());
    injector.log("fault", "invoke", "", -1, "F2 " + holder.name());
    WorkerProcess next = null;
    int released;
    try {
      TimeUnit.NANOSECONDS.sleep(settings.pause().toNanos());
      next = awaitNewHoldBesides(holder);
      if (next != null && !keepInAHold(next)) {
        next = null;
      }
    } finally {
      synchronized (monitor) {
        released = holder.releases();
      }
      Faults.cont(holder.pid());
      injector.log("fault", "ok", "", -1, "F2 " + holder.name());
    }
    if (next == null) {
      return;
    }
    try {
      boolean done = awaitRelease(holder, released, settings.lease().toNanos() / 2);
      injector.log("fault", "info", "", -1, done
          ? "F2 kept " + next.name() + " in a hold until " + holder.name() + " released"
          : "F2 let " + next.name() + " go: " + holder.name() + " had not released within half a lease");
    } finally {
      next.free();
    }
  }

  /**
   * Asks {@code w} to stay in a hold and waits, up to a lease, until it says it does; false (and
   * {@code w} let go) if it did not.
   */
  private boolean keepInAHold(WorkerProcess w) throws InterruptedException {
    long deadline = System.nanoTime() + settings.lease().toNanos();
    synchronized (monitor) {
      int kept = w.kept();
      w.holdBack();
      while (w.kept() == kept && !w.ended()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          w.free();
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(monitor, left);
      }
      return w.kept() > kept;
    }
  }

  /**
   * Waits, up to a lease, until another worker enters a new hold, and returns it (null if none
   * came): the paused holder then wakes while the lock is someone else's, as the articles' paused
   * client does.
   */
  private WorkerProcess awaitNewHoldBesides(WorkerProcess paused) throws InterruptedException {
    long deadline = System.nanoTime() + settings.lease().toNanos();
    synchronized (monitor) {
      int[] seen = workers.stream().mapToInt(WorkerProcess::enters).toArray();
      while (true) {
        for (int i = 0; i < workers.size(); i++) {
          if (workers.get(i) != paused && workers.get(i).enters() > seen[i]) {
            return workers.get(i);
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return null; // no one took the lock: wake the holder all the same
        }
        TimeUnit.NANOSECONDS.timedWait(monitor, left);
      }
    }
  }

  /**
   * Waits, up to {@code nanos}, until {@code w} has released more than {@code released} holds, or
   * ended; true if it released.
   */
  private boolean awaitRelease(WorkerProcess w, int released, long nanos) throws InterruptedException {
    long deadline = System.nanoTime() + nanos;
    synchronized (monitor) {
      long left = nanos;
      while (left > 0 && w.releases() <= released && !w.ended()) {
        TimeUnit.NANOSECONDS.timedWait(monitor, left);
        left = deadline - System.nanoTime();
      }
      return w.releases() > released;
    }
  }

  /** The first worker of which {@code state} holds, waited for up to ten seconds. */
  private WorkerProcess await(Predicate<WorkerProcess> state, String what) throws InterruptedException {
    long deadline = System.nanoTime() + MOMENT_NANOS;
    synchronized (monitor) {
      while (true) {
        for (WorkerProcess w : workers) {
          if (state.test(w)) {
            return w;
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException(cell + ": no moment for the fault came in 10 s: " + what);
        }
        TimeUnit.NANOSECONDS.timedWait(monitor, left);
      }
    }
  }

  /** Waits until {@code state} holds of every worker; a worker that ends first is a failure. */
  private void awaitAll(Predicate<WorkerProcess> state, long nanos, String what) throws InterruptedException {
    long deadline = System.nanoTime() + nanos;
    synchronized (monitor) {
      while (true) {
        WorkerProcess missing = null;
        for (WorkerProcess w : workers) {
          if (!state.test(w)) {
            if (w.ended()) {
              throw new IllegalStateException(cell + ": worker " + w.name() + " ended before " + what
                  + "; its stderr:\n" + w.stderrTail());
            }
            missing = w;
          }
        }
        if (missing == null) {
          return;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException(cell + ": worker " + missing.name() + " did not reach " + what
              + " in time; its stderr:\n" + missing.stderrTail());
        }
        TimeUnit.NANOSECONDS.timedWait(monitor, left);
      }
    }
  }
}
