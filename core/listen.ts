import type { Server } from "node:http";

/**
 * Listens on the port and address; resolves with the port listened on (the one chosen when 0 was
 * asked), rejects with the error that kept it from listening (a port in use, say).
 */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const a = server.address();
      resolve(typeof a === "object" && a ? a.port : port);
    });
  });
}
