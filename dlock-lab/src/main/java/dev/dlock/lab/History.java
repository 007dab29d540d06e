package dev.dlock.lab;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A worker's history as JSON lines, one {@link Event} a line. Every line is flushed as it is
 * written: a worker killed with {@code kill -9} leaves all it wrote before, and at most a torn last
 * line, which {@link #read} skips.
 */
public final class History implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String process;
  private final BufferedWriter out;

  private History(String process, BufferedWriter out) {
    this.process = process;
    this.out = out;
  }

  /** Opens {@code file} for appending the events of {@code process}. */
  public static History append(Path file, String process) {
    try {
      return new History(process, Files.newBufferedWriter(file, StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the history " + file, e);
    }
  }

  /** Records one event of this process, stamped now. Safe from several threads. */
  public void log(String op, String type, String lock, long token, String info) {
    write(new Event(process, op, type, lock, token, System.nanoTime(), info));
  }

  /** Records {@code event} as it is: the injector uses this for fault windows it timed itself. */
  public synchronized void write(Event event) {
    try {
      out.write(JSON.writeValueAsString(event));
      out.newLine();
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the history of " + process, e);
    }
  }

  @Override
  public synchronized void close() {
    try {
      out.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close the history of " + process, e);
    }
  }

  /** The events of {@code file}, in file order; a torn last line (the writer was killed) is left out. */
  public static List<Event> read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the history " + file, e);
    }
    List<Event> events = new ArrayList<>(lines.size());
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank()) {
        continue;
      }
      try {
        events.add(JSON.readValue(line, Event.class));
      } catch (IOException e) {
        if (i < lines.size() - 1) {
          throw new IllegalStateException("line " + (i + 1) + " of the history " + file + " is not an event: " + line, e);
        }
      }
    }
    return events;
  }
}
