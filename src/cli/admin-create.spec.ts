import { USAGE, parseArgs } from './admin-create';

describe('admin:create arguments', () => {
  it('asks for the usage with --help or -h, whatever else is given', () => {
    expect(parseArgs(['--help'])).toEqual({ help: true });
    expect(parseArgs(['-h'])).toEqual({ help: true });
    expect(parseArgs(['--username', 'alice', '--help'])).toEqual({ help: true });
    expect(USAGE).toMatch(/^usage: npm run admin:create -- --username NAME/);
  });

  it('reads --username and --role, separate or with =', () => {
    expect(parseArgs(['--username', 'alice'])).toEqual({ help: false, username: 'alice', role: 'owner' });
    expect(parseArgs(['--username=bob', '--role=viewer'])).toEqual({ help: false, username: 'bob', role: 'viewer' });
  });

  it('names an unknown flag, and takes no value away from the next flag', () => {
    expect(() => parseArgs(['--frob'])).toThrow(/^unknown argument --frob; usage: /);
    expect(() => parseArgs(['--frob=1', '--username', 'alice'])).toThrow(/^unknown argument --frob=1;/);
    expect(() => parseArgs(['--username', 'alice', 'stray'])).toThrow(/^unknown argument stray;/);
  });

  it('refuses a flag given twice instead of keeping one of its values', () => {
    expect(() => parseArgs(['--username', 'a', '--username', 'b'])).toThrow('--username is given twice');
    expect(() => parseArgs(['--role=viewer', '--username', 'a', '--role', 'owner'])).toThrow('--role is given twice');
  });

  it('names a missing value or a bad role', () => {
    expect(() => parseArgs([])).toThrow('--username is required');
    expect(() => parseArgs(['--username'])).toThrow('--username needs a value');
    expect(() => parseArgs(['--username', 'alice', '--role', 'root'])).toThrow(
      '--role must be owner, moderator or viewer',
    );
  });
});
