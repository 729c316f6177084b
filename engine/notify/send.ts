import { sendMail } from "../../connectors/mail/smtp.js";
import { postJson } from "../../connectors/webhook/post.js";
import type { OutboxEvent } from "../../store/outbox-claim.js";
import { type DeliveryTarget, isMail } from "./config.js";
import { eventBody, eventMail } from "./message.js";

/**
 * Sends one event to one target, never throwing: a webhook gets the JSON body, an address an
 * e-mail. Both carry the event's stable id (a header; the mail's Message-ID too), on which
 * receivers and mail readers deduplicate an event sent again (delivery is at least once).
 */
export async function sendEvent(
  t: DeliveryTarget,
  e: OutboxEvent,
  o: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<{ ok: boolean; error?: string | undefined }> {
  if (!isMail(t)) {
    return postJson(t.url, eventBody(e), {
      headers: { "x-skillsync-event-id": e.id, "x-skillsync-event-kind": e.kind },
      ...o,
    });
  }
  const { subject, text } = eventMail(e);
  return sendMail(
    t.smtp.url,
    {
      from: t.smtp.sender,
      to: t.address,
      subject,
      text,
      messageId: `<${e.id}@skillsync>`,
      headers: { "X-Skillsync-Event-Id": e.id, "X-Skillsync-Event-Kind": e.kind },
    },
    o,
  );
}
