import { api } from '../api.js';
import { announce, field, h, input } from '../dom.js';

export async function renderAccount(main) {
  const { admin } = await api.get('auth/me');
  const password = h(
    'form',
    { class: 'inline', 'aria-label': 'Change password' },
    field(
      'Current password',
      input('current_password', { type: 'password', required: true, autocomplete: 'current-password' }),
    ),
    field(
      'New password (12 characters or more)',
      input('new_password', { type: 'password', required: true, autocomplete: 'new-password', minlength: 12 }),
    ),
    h('button', { type: 'submit' }, 'Change password'),
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
      announce('Password changed.');
    } catch (error) {
      announce(error.message, true);
    }
  });
  const twoFactor = h('section', { 'aria-label': 'Two-factor sign-in' });
  const renderTwoFactor = (enabled) => {
    twoFactor.replaceChildren(
      h('h2', {}, 'Two-factor sign-in'),
      h('p', {}, enabled ? 'On: sign-in asks for a code from your authenticator app.' : 'Off.'),
    );
    if (enabled) {
      const form = h(
        'form',
        { class: 'inline', 'aria-label': 'Turn two-factor sign-in off' },
        field('Password', input('password', { type: 'password', required: true, autocomplete: 'current-password' })),
        field(
          'Code',
          input('code', {
            inputmode: 'numeric',
            pattern: '[0-9]{6}',
            maxlength: 6,
            required: true,
            autocomplete: 'one-time-code',
          }),
        ),
        h('button', { type: 'submit', class: 'danger' }, 'Turn off'),
      );
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        try {
          await api.post('auth/totp/disable', {
            password: String(data.get('password')),
            code: String(data.get('code')),
          });
          announce('Two-factor sign-in is off.');
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
                { class: 'inline', 'aria-label': 'Confirm two-factor sign-in' },
                field(
                  'Code from the app',
                  input('code', {
                    inputmode: 'numeric',
                    pattern: '[0-9]{6}',
                    maxlength: 6,
                    required: true,
                    autocomplete: 'one-time-code',
                  }),
                ),
                h('button', { type: 'submit' }, 'Turn on'),
              );
              confirm.addEventListener('submit', async (event) => {
                event.preventDefault();
                try {
                  await api.post('auth/totp/enable', { code: String(new FormData(confirm).get('code')) });
                  announce('Two-factor sign-in is on.');
                  renderTwoFactor(true);
                } catch (error) {
                  announce(error.message, true);
                }
              });
              pending.replaceChildren(
                h(
                  'p',
                  {},
                  'Scan the QR code with an authenticator app (or type the key, or open the link on the phone), then enter the code it shows.',
                ),
                // Drawn by the service as an SVG data: URL (img-src allows data:): no QR script here.
                h('img', {
                  class: 'qr',
                  src: setup.qr_code,
                  alt: 'QR code of the two-factor key, for an authenticator app',
                  width: 200,
                  height: 200,
                }),
                h('p', {}, 'Key: ', h('code', {}, setup.secret)),
                h('p', {}, h('a', { href: setup.otpauth_uri }, 'Open in an authenticator app')),
                confirm,
              );
            } catch (error) {
              announce(error.message, true);
            }
          },
        },
        'Set up two-factor sign-in',
      ),
      pending,
    );
  };
  main.append(h('p', {}, `${admin.username}, ${admin.role}`), h('h2', {}, 'Password'), password, twoFactor);
  renderTwoFactor(Boolean(admin.totp_enabled));
}
