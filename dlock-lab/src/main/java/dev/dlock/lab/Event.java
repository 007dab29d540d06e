package dev.dlock.lab;

/**
 * One line of a worker's history: what {@code process} did or saw, when. {@code nanos} is
 * {@link System#nanoTime()} of the process that wrote it; every process of a run is on one machine,
 * so the readings of different processes compare.
 *
 * @param process the worker ({@code w1}, {@code w2}, ...) or {@code injector} for fault windows
 * @param op      {@code acquire}, {@code enter}, {@code exit}, {@code release}, {@code write}, {@code lost},
 *                {@code buy}, {@code wake} or {@code fault}
 * @param type    {@code invoke}, {@code ok}, {@code fail} or {@code info}
 * @param lock    the lock's name, or {@code ""}
 * @param token   the grant's fencing token, or {@code -1} when the scheme has none
 * @param nanos   when it happened
 * @param info    free text: the owner a release freed, a fault's name, why an operation failed
 */
public record Event(String process, String op, String type, String lock, long token, long nanos, String info) {}
