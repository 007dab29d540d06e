package dev.dlock.examples.redpacket;

/** One red packet paid: to whom, how much, and under which grant of the user's lock. */
public record Payment(long userId, long amountCents, long token) {}
