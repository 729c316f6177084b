import { type Html, html } from "../html.js";
import { layout } from "../layout.js";

/** The sign-in page: the one-time link's explanation and the server secret's form. */
export function signInPage(problem?: string): Html {
  return layout({
    title: "Sign in",
    body: html`${problem ? html`<p class="error" role="alert">${problem}</p>` : ""}
<p>Open the one-time link <code>skillsync serve</code> or <code>skillsync console</code> printed when it
started, or sign in with the server secret (<code>SKILLSYNC_SERVER_SECRET</code>).</p>
<form class="signin" method="post" action="/console/signin">
<label for="secret">Server secret</label>
<input id="secret" name="secret" type="password" autocomplete="current-password" required>
<button class="act">Sign in</button>
</form>`,
  });
}
