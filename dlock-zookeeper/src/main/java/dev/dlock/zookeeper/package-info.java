/**
 * The ZooKeeper backend behind {@code zookeeper://} URLs: herd-free exclusive, fair and read-write
 * locks and semaphores on ephemeral sequential nodes (S12, S13), on a Curator-managed session. See
 * {@link dev.dlock.zookeeper.ZooKeeperBackendProvider}.
 */
@NullMarked
package dev.dlock.zookeeper;

import org.jspecify.annotations.NullMarked;
