// The console's shell: the session, the navigation by role, and hash routing (#/reports).
import { api, onSignedOut } from './api.js';
import { announce, clearStatus, h } from './dom.js';
import { setLocale } from './i18n.js';
import { renderLogin } from './pages/login.js';
import { renderDashboard } from './pages/dashboard.js';
import { renderReports } from './pages/reports.js';
import { renderClientErrors } from './pages/client-errors.js';
import { renderUsers } from './pages/users.js';
import { renderGroups } from './pages/groups.js';
import { renderSettings } from './pages/settings.js';
import { renderAudit } from './pages/audit.js';
import { renderWebhooks } from './pages/webhooks.js';
import { renderPush } from './pages/push.js';
import { renderAdmins } from './pages/admins.js';
import { renderAccount } from './pages/account.js';

const RANK = { viewer: 0, moderator: 1, owner: 2 };
const PAGES = [
  { path: 'dashboard', title: 'Dashboard', least: 'viewer', render: renderDashboard },
  { path: 'reports', title: 'Reports', least: 'viewer', render: renderReports },
  { path: 'client-errors', title: 'Client errors', least: 'viewer', render: renderClientErrors },
  { path: 'users', title: 'Users', least: 'viewer', render: renderUsers },
  { path: 'groups', title: 'Groups', least: 'viewer', render: renderGroups },
  { path: 'settings', title: 'Settings', least: 'viewer', render: renderSettings },
  { path: 'webhooks', title: 'Webhooks', least: 'viewer', render: renderWebhooks },
  { path: 'push', title: 'Push', least: 'viewer', render: renderPush },
  { path: 'audit', title: 'Audit log', least: 'viewer', render: renderAudit },
  { path: 'admins', title: 'Administrators', least: 'owner', render: renderAdmins },
  { path: 'account', title: 'My account', least: 'viewer', render: renderAccount },
];

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
const menu = document.getElementById('menu');
let me = null;

// On a narrow screen the sections sit behind the Menu button (the stylesheet hides the button
// and shows the sidebar on wide ones); choosing a section closes it again.
function setMenuOpen(open) {
  nav.classList.toggle('open', open);
  menu.setAttribute('aria-expanded', String(open));
}
menu.addEventListener('click', () => setMenuOpen(!nav.classList.contains('open')));

/** What the signed-in administrator's role allows; pages hide or disable the rest. */
export const can = (least) => me !== null && RANK[me.role] >= RANK[least];

function showLogin() {
  me = null;
  nav.hidden = true;
  menu.hidden = true;
  setMenuOpen(false);
  who.replaceChildren();
  document.title = 'Sign in · IM admin console';
  renderLogin(main, async () => {
    await start();
  });
}

async function logout() {
  try {
    await api.post('auth/logout');
  } catch {
    // The session may be gone already; either way the login shows.
  }
  showLogin();
}

function renderNav(current) {
  nav.hidden = false;
  menu.hidden = false;
  nav.replaceChildren(
    h(
      'ul',
      {},
      PAGES.filter((p) => can(p.least)).map((p) =>
        h('li', {}, h('a', { href: `#/${p.path}`, 'aria-current': p.path === current ? 'page' : undefined }, p.title)),
      ),
    ),
  );
  who.replaceChildren(
    h('span', {}, `${me.username} (${me.role})`),
    h('button', { type: 'button', class: 'secondary', onclick: logout }, 'Log out'),
  );
}

function decodePart(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

async function route() {
  if (!me) return;
  // #/reports/42: the page, then what it shows (a report, a user, a group), passed as `params`.
  const [path = 'dashboard', ...params] = (location.hash.replace(/^#\/?/, '').split('?')[0] || 'dashboard')
    .split('/')
    .map(decodePart);
  const page = PAGES.find((p) => p.path === path && can(p.least)) ?? PAGES[0];
  renderNav(page.path);
  setMenuOpen(false);
  document.title = `${page.title} · IM admin console`;
  clearStatus();
  main.replaceChildren(h('h1', {}, page.title));
  try {
    await page.render(main, { me, can, params: page.path === path ? params : [] });
  } catch (error) {
    announce(error.message, true);
  }
  // For screen readers the new page starts here; main is not a control, so no ring is drawn.
  main.focus();
}

async function start() {
  try {
    me = (await api.get('auth/me')).admin;
    setLocale(me.locale);
  } catch {
    showLogin();
    return;
  }
  await route();
}

// A failed login is a 401 too: only a session that existed ends here.
onSignedOut(() => {
  if (!me) return;
  announce('Your session ended. Please sign in again.', true);
  showLogin();
});
window.addEventListener('hashchange', () => void route());
void start();
