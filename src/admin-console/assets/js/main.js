// The console's shell: the session, the navigation by role, and hash routing (#/reports).
import { api, onSignedOut } from './api.js';
import { announce, clearStatus, h } from './dom.js';
import { setLocale, t } from './i18n.js';
import { renderLogin } from './pages/login.js';
import { renderDashboard } from './pages/dashboard.js';
import { renderAnalytics } from './pages/analytics.js';
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
  { path: 'dashboard', title: 'shell.page.dashboard', least: 'viewer', render: renderDashboard },
  { path: 'analytics', title: 'shell.page.analytics', least: 'viewer', render: renderAnalytics },
  { path: 'reports', title: 'shell.page.reports', least: 'viewer', render: renderReports },
  { path: 'client-errors', title: 'shell.page.client_errors', least: 'viewer', render: renderClientErrors },
  { path: 'users', title: 'shell.page.users', least: 'viewer', render: renderUsers },
  { path: 'groups', title: 'shell.page.groups', least: 'viewer', render: renderGroups },
  { path: 'settings', title: 'shell.page.settings', least: 'viewer', render: renderSettings },
  { path: 'webhooks', title: 'shell.page.webhooks', least: 'viewer', render: renderWebhooks },
  { path: 'push', title: 'shell.page.push', least: 'viewer', render: renderPush },
  { path: 'audit', title: 'shell.page.audit', least: 'viewer', render: renderAudit },
  { path: 'admins', title: 'shell.page.admins', least: 'owner', render: renderAdmins },
  { path: 'account', title: 'shell.page.account', least: 'viewer', render: renderAccount },
];

// A page's title is a key of the strings files (js/i18n/<locale>.js), looked up when shown.
const titleOf = (page) => t(page.title);

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
const menu = document.getElementById('menu');
let me = null;

const roleName = (role) =>
  ({ viewer: t('admins.role.viewer'), moderator: t('admins.role.moderator'), owner: t('admins.role.owner') })[role] ??
  role;

/** The shell's own words (index.html is static): drawn again whenever the language changes. */
function shellText() {
  document.querySelector('.skip').textContent = t('shell.skip');
  document.querySelector('.brand').textContent = t('shell.brand');
  menu.textContent = t('shell.menu');
  nav.setAttribute('aria-label', t('shell.nav'));
}

/**
 * Before sign-in the administrator is unknown: the browser's language chooses (any zh-* is
 * Simplified Chinese, anything else English). After it, the account's own choice does.
 */
const browserLocale = () => (/^zh\b/i.test(navigator.language ?? '') ? 'zh-CN' : 'en');

// The skip link goes to <main> without touching the hash, which is the router's.
document.querySelector('.skip').addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
  main.scrollIntoView();
});

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
  setLocale(browserLocale());
  shellText();
  document.title = t('shell.title', { page: t('login.title') });
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
        h(
          'li',
          {},
          h('a', { href: `#/${p.path}`, 'aria-current': p.path === current ? 'page' : undefined }, titleOf(p)),
        ),
      ),
    ),
  );
  who.replaceChildren(
    h('span', {}, t('shell.who', { username: me.username, role: roleName(me.role) })),
    h('button', { type: 'button', class: 'secondary', onclick: logout }, t('shell.logout')),
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
  document.title = t('shell.title', { page: titleOf(page) });
  clearStatus();
  main.replaceChildren(h('h1', {}, titleOf(page)));
  try {
    await page.render(main, { me, can, relocalize, params: page.path === path ? params : [] });
  } catch (error) {
    announce(error.message, true);
  }
  // For screen readers the new page starts here; main is not a control, so no ring is drawn.
  main.focus();
}

/** After the administrator chose another language (the account page): the whole console in it. */
async function relocalize(admin) {
  me = admin;
  setLocale(me.locale);
  shellText();
  await route();
}

async function start() {
  try {
    me = (await api.get('auth/me')).admin;
    setLocale(me.locale);
    shellText();
  } catch {
    showLogin();
    return;
  }
  await route();
}

// A failed login is a 401 too: only a session that existed ends here.
onSignedOut(() => {
  if (!me) return;
  announce(t('shell.session_ended'), true);
  showLogin();
});
window.addEventListener('hashchange', () => void route());
void start();
