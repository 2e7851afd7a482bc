// The HTML template tag of the sign-in pages: libs/platform's (the hosts' landing pages use it too).
export { escapeHtml, html, SafeHtml } from '@svc/platform';
