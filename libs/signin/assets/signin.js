// Page script of the sign-in pages (served from /assets, no inline script): passkey ceremonies through
// SimpleWebAuthnBrowser, posting JSON with the page's CSRF token; passkey autofill in the email field (WebAuthn
// conditional mediation); a refused ceremony explained by its cause; and the copy button of the reveal page.
(() => {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
  const lib = window.SimpleWebAuthnBrowser;

  async function postJson(url, body) {
    const res = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw Object.assign(new Error(`request failed: ${res.status}`), { status: res.status });
    return res.json();
  }

  // One ceremony at a time: once a passkey answered (the autofill's or a button's), its verification runs to the
  // end and no other ceremony starts (a button pressed meanwhile waits for the page it leads to).
  let verifying = false;

  /** One passkey ceremony: options, the browser's prompt (or autofill), verification, then the next page. */
  async function ceremony(el, kind, autofill) {
    const optionsJSON = await postJson(el.dataset.optionsUrl, {});
    const started = Date.now();
    let response;
    try {
      response =
        kind === 'register'
          ? await lib.startRegistration({ optionsJSON })
          : await lib.startAuthentication({ optionsJSON, useBrowserAutofill: autofill });
    } catch (err) {
      // NotAllowedError is both a cancel and a timeout: the time the prompt stayed open tells them apart.
      const timeout = Number(optionsJSON.timeout) || 0;
      throw Object.assign(err, { timedOut: timeout > 0 && Date.now() - started >= timeout * 0.95 });
    }
    verifying = true;
    try {
      const result = await postJson(el.dataset.verifyUrl, response);
      window.location.assign(result.next);
    } finally {
      verifying = false;
    }
  }

  /** The message of a refusal, from the button's data-error-* (the page's language). */
  function explain(button, err) {
    const name = err?.name;
    if (name === 'InvalidStateError') return { text: button.dataset.errorExists, exists: true };
    if (name === 'NotAllowedError')
      return { text: err.timedOut ? button.dataset.errorTimeout : button.dataset.errorCancelled };
    return { text: button.dataset.error };
  }

  function bindPasskey(button) {
    const scope = button.parentElement;
    const status = scope?.querySelector('[data-passkey-status]');
    button.addEventListener('click', async () => {
      if (verifying) return;
      button.disabled = true;
      if (status) status.textContent = '';
      try {
        await ceremony(button, button.dataset.passkey, false);
      } catch (err) {
        // Another ceremony took over (the autofill's, another button's): nothing to say.
        if (err?.name === 'AbortError') {
          button.disabled = false;
          return;
        }
        const { text, exists } = explain(button, err);
        if (status) {
          status.textContent = text ?? 'Error';
          status.focus();
        }
        // The way forward when this device already holds a passkey for the account: sign in with it.
        const signIn = exists ? scope?.querySelector('[data-passkey-exists]') : undefined;
        if (signIn) signIn.hidden = false;
        button.disabled = false;
      }
    });
  }

  /**
   * Passkey autofill: once the email field is first focused, a conditional-mediation request waits for the person
   * to pick a passkey from the field's suggestions (the buttons abort it when pressed). Without WebAuthn autofill
   * in the browser nothing starts, and the page works as before. A request that ended (refused, aborted) starts
   * again at the field's next focus. The field's data-autofill says where it stands: ready, pending, done, ended.
   */
  async function bindAutofill(field) {
    if (!lib || !(await lib.browserSupportsWebAuthnAutofill().catch(() => false))) return;
    field.dataset.autofill = 'ready';
    const start = async () => {
      if (field.dataset.autofill === 'pending' || field.dataset.autofill === 'done' || verifying) return;
      field.dataset.autofill = 'pending';
      try {
        await ceremony(field, 'authenticate', true);
        field.dataset.autofill = 'done';
      } catch {
        // The person did not pick a passkey (or a button took over): the form below works as without autofill.
        field.dataset.autofill = 'ended';
      }
    };
    field.addEventListener('focus', start);
    if (document.activeElement === field) start();
  }

  function bindCopy(button) {
    button.addEventListener('click', async () => {
      const field = document.getElementById(button.dataset.copy ?? '');
      if (!field) return;
      field.select();
      try {
        await navigator.clipboard.writeText(field.value);
        button.textContent = button.dataset.copied ?? button.textContent;
      } catch {
        // Selecting the text is enough to copy it by hand.
      }
    });
  }

  // The pages render these buttons disabled: a click before this deferred script has bound them would do nothing
  // (a slow connection, a loaded machine), so they become usable only once they work.
  for (const b of document.querySelectorAll('[data-passkey]')) {
    bindPasskey(b);
    b.disabled = false;
  }
  for (const f of document.querySelectorAll('[data-passkey-autofill]')) bindAutofill(f);
  for (const b of document.querySelectorAll('[data-copy]')) {
    bindCopy(b);
    b.disabled = false;
  }
})();
