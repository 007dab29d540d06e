package dev.dlock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback port where a TCP connect neither succeeds nor is refused, as behind a firewall that
 * drops packets: a socket listens with a backlog of one and never accepts, and connections fill
 * that backlog, so the kernel drops every further SYN. Only a connect timeout ends a connect here.
 */
final class SilentPort implements AutoCloseable {
  private final ServerSocket listener;
  private final List<Socket> filling = new ArrayList<>();

  SilentPort() {
    try {
      listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      // Linux queues backlog + 1 connections; the first connect that times out proves it full.
      for (int i = 0; i < 10; i++) {
        Socket s = new Socket();
        try {
          s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port()), 200);
          filling.add(s);
        } catch (SocketTimeoutException full) {
          s.close();
          return;
        }
      }
      throw new IllegalStateException("the backlog of port " + port() + " never filled");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return listener.getLocalPort();
  }

  @Override
  public void close() throws IOException {
    for (Socket s : filling) {
      s.close();
    }
    listener.close();
  }
}
