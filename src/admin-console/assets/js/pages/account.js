import { api } from '../api.js';
import { announce, field, h, input, select } from '../dom.js';
import { LOCALES, currentLocale, t } from '../i18n.js';

const roleName = (role) =>
  ({ viewer: t('admins.role.viewer'), moderator: t('admins.role.moderator'), owner: t('admins.role.owner') })[role] ??
  role;

/** The language select: applies at once (the whole console is drawn again in it), then keeps focus. */
function languageForm(relocalize) {
  // Each language is named in itself, so an administrator finds theirs whatever is shown now.
  const choice = select('locale', LOCALES, currentLocale());
  choice.id = 'account-locale';
  // Read out in its own language (WCAG: language of parts).
  for (const option of choice.options) option.lang = option.value;
  const form = h(
    'form',
    { class: 'inline', 'aria-label': t('account.language') },
    field(t('account.language_label'), choice),
  );
  choice.addEventListener('change', async () => {
    try {
      const { admin } = await api.post('auth/locale', { locale: choice.value });
      await relocalize(admin);
      document.getElementById('account-locale')?.focus();
      announce(t('account.language_saved'));
    } catch (error) {
      choice.value = currentLocale();
      announce(error.message, true);
    }
  });
  form.addEventListener('submit', (event) => event.preventDefault());
  return form;
}

export async function renderAccount(main, { relocalize }) {
  const { admin } = await api.get('auth/me');
  const password = h(
    'form',
    { class: 'inline', 'aria-label': t('account.change_password') },
    field(
      t('account.current_password'),
      input('current_password', { type: 'password', required: true, autocomplete: 'current-password' }),
    ),
    field(
      t('account.new_password'),
      input('new_password', { type: 'password', required: true, autocomplete: 'new-password', minlength: 12 }),
    ),
    h('button', { type: 'submit' }, t('account.change_password')),
  );
  password.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(password);
    try {
      await api.post('auth/password', {
        current_password: String(data.get('current_password')),
        new_password: String(data.get('new_password')),
      });
      password.reset();
      announce(t('account.password_changed'));
    } catch (error) {
      announce(error.message, true);
    }
  });
  const twoFactor = h('section', { 'aria-label': t('account.two_factor') });
  const codeInput = () =>
    input('code', {
      inputmode: 'numeric',
      pattern: '[0-9]{6}',
      maxlength: 6,
      required: true,
      autocomplete: 'one-time-code',
    });
  const renderTwoFactor = (enabled) => {
    twoFactor.replaceChildren(
      h('h2', {}, t('account.two_factor')),
      h('p', {}, enabled ? t('account.two_factor_on') : t('account.two_factor_off')),
    );
    if (enabled) {
      const form = h(
        'form',
        { class: 'inline', 'aria-label': t('account.turn_off_form') },
        field(
          t('login.password'),
          input('password', { type: 'password', required: true, autocomplete: 'current-password' }),
        ),
        field(t('account.code'), codeInput()),
        h('button', { type: 'submit', class: 'danger' }, t('account.turn_off')),
      );
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        try {
          await api.post('auth/totp/disable', {
            password: String(data.get('password')),
            code: String(data.get('code')),
          });
          announce(t('account.two_factor_now_off'));
          renderTwoFactor(false);
        } catch (error) {
          announce(error.message, true);
        }
      });
      twoFactor.append(form);
      return;
    }
    // A second setup replaces the first one's key (the service keeps only the newest).
    const pending = h('div');
    twoFactor.append(
      h(
        'button',
        {
          type: 'button',
          onclick: async () => {
            try {
              const setup = await api.post('auth/totp/setup');
              const confirm = h(
                'form',
                { class: 'inline', 'aria-label': t('account.confirm_form') },
                field(t('account.code_from_app'), codeInput()),
                h('button', { type: 'submit' }, t('account.turn_on')),
              );
              confirm.addEventListener('submit', async (event) => {
                event.preventDefault();
                try {
                  await api.post('auth/totp/enable', { code: String(new FormData(confirm).get('code')) });
                  announce(t('account.two_factor_now_on'));
                  renderTwoFactor(true);
                } catch (error) {
                  announce(error.message, true);
                }
              });
              pending.replaceChildren(
                h('p', {}, t('account.scan')),
                // Drawn by the service as an SVG data: URL (img-src allows data:): no QR script here.
                h('img', { class: 'qr', src: setup.qr_code, alt: t('account.qr_alt'), width: 200, height: 200 }),
                h('p', {}, `${t('account.key')} `, h('code', {}, setup.secret)),
                h('p', {}, h('a', { href: setup.otpauth_uri }, t('account.open_app'))),
                confirm,
              );
            } catch (error) {
              announce(error.message, true);
            }
          },
        },
        t('account.set_up'),
      ),
      pending,
    );
  };
  main.append(
    h('p', {}, t('account.who', { username: admin.username, role: roleName(admin.role) })),
    h('h2', {}, t('account.language')),
    languageForm(relocalize),
    h('h2', {}, t('account.password')),
    password,
    twoFactor,
  );
  renderTwoFactor(Boolean(admin.totp_enabled));
}
