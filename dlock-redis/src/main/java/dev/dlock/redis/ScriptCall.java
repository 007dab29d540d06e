package dev.dlock.redis;

import dev.dlock.redis.Scripts.Script;
import java.util.function.Function;

/**
 * One run of a script, ready to send: the script, its keys and arguments, and how its reply reads.
 * Why a value and not a method that runs it: the single-server backend runs it and waits
 * ({@link Calls#run}), Redlock sends it to every node at once ({@link RedlockNode#run(ScriptCall)}),
 * and both must encode the arguments and read the reply the same way ({@link ScriptCalls}).
 *
 * @param reply reads the script's raw reply
 */
record ScriptCall<R>(Script script, byte[][] keys, byte[][] args, Function<Object, R> reply) {}
