import type { Command } from "commander";
import { type NotifyTarget, notifyFromFlag } from "../engine/notify/config.js";

/** `--notify URL` of `run`, `serve`, `schedule` and `worker` (docs/notifications.md). */
export function withNotifyOption(cmd: Command): Command {
  return cmd.option(
    "--notify <url>",
    "POST a JSON event (Slack-compatible) to this webhook when a run fails, ends with warnings or stops at a ceiling, a budget passes 80 %/100 %, a tick is missed or a worker is lost (default SKILLSYNC_NOTIFY_URL; docs/notifications.md)",
  );
}

/** The webhook of `--notify` or SKILLSYNC_NOTIFY_URL, checked before anything is opened (exit 2). */
export function notifyTargets(flags: { notify?: string }): NotifyTarget[] {
  return notifyFromFlag(flags.notify);
}
