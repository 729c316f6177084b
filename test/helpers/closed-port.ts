import { createServer } from "node:net";

/**
 * A loopback port nothing listens on: bound by this process a moment ago and released, so a
 * connection to it is refused (unlike a fixed port, which another service on the machine may use).
 */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
