/**
 * The ZooKeeper backend behind {@code zookeeper://} URLs: herd-free exclusive locks on ephemeral
 * sequential nodes (S12), on a Curator-managed session. See
 * {@link dev.dlock.zookeeper.ZooKeeperBackendProvider}.
 */
package dev.dlock.zookeeper;
