// Page script of the sign-in pages (served from /assets, no inline script): passkey ceremonies through
// SimpleWebAuthnBrowser, posting JSON with the page's CSRF token, and the copy button of the reveal page.
(() => {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

  async function postJson(url, body) {
    const res = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`request failed: ${res.status}`);
    return res.json();
  }

  function bindPasskey(button) {
    const status = button.parentElement?.querySelector('[data-passkey-status]');
    button.addEventListener('click', async () => {
      const lib = window.SimpleWebAuthnBrowser;
      button.disabled = true;
      if (status) status.textContent = '';
      try {
        const optionsJSON = await postJson(button.dataset.optionsUrl, {});
        const response =
          button.dataset.passkey === 'register'
            ? await lib.startRegistration({ optionsJSON })
            : await lib.startAuthentication({ optionsJSON });
        const result = await postJson(button.dataset.verifyUrl, response);
        window.location.assign(result.next);
      } catch {
        if (status) status.textContent = button.dataset.error ?? 'Error';
        button.disabled = false;
      }
    });
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
  for (const b of document.querySelectorAll('[data-copy]')) {
    bindCopy(b);
    b.disabled = false;
  }
})();
