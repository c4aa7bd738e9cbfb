import { ConfigError, loadConfig } from './app-config';
import { loadMediaStorageConfig } from './media-config';

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const S3_ENV = { MEDIA_STORAGE: 's3', MEDIA_S3_BUCKET: 'im-media' };

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  loadMediaStorageConfig(env, problems);
  return problems;
}

describe('loadMediaStorageConfig', () => {
  it('keeps media on the local disk by default', () => {
    expect(loadMediaStorageConfig({}, [])).toEqual({ driver: 'local' });
    expect(loadMediaStorageConfig({ MEDIA_STORAGE: 'local' }, [])).toEqual({ driver: 'local' });
  });

  it('reads an S3 bucket with the defaults: us-east-1, virtual-hosted names, no prefix, the default credential chain', () => {
    expect(loadMediaStorageConfig(S3_ENV, [])).toEqual({
      driver: 's3',
      bucket: 'im-media',
      region: 'us-east-1',
      endpoint: null,
      forcePathStyle: false,
      prefix: '',
      credentials: null,
    });
  });

  it('reads every variable, trimming the endpoint and normalising the prefix to "a/b/"', () => {
    const config = loadMediaStorageConfig(
      {
        ...S3_ENV,
        MEDIA_S3_ENDPOINT: 'http://minio.internal:9000/',
        MEDIA_S3_REGION: 'eu-west-3',
        MEDIA_S3_FORCE_PATH_STYLE: 'true',
        MEDIA_S3_PREFIX: '/tenant-1/media/',
        MEDIA_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
        MEDIA_S3_SECRET_ACCESS_KEY: SECRET,
      },
      [],
    );
    expect(config).toEqual({
      driver: 's3',
      bucket: 'im-media',
      region: 'eu-west-3',
      endpoint: 'http://minio.internal:9000',
      forcePathStyle: true,
      prefix: 'tenant-1/media/',
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: SECRET },
    });
  });

  it.each([
    [{ MEDIA_STORAGE: 'S3' }, /^MEDIA_STORAGE must be one of local, s3 \(got "S3"\)$/],
    [{ MEDIA_STORAGE: 's3' }, /^MEDIA_S3_BUCKET is required when MEDIA_STORAGE=s3$/],
    [{ ...S3_ENV, MEDIA_S3_BUCKET: 'a' }, /^MEDIA_S3_BUCKET must be a bucket name/],
    [{ ...S3_ENV, MEDIA_S3_BUCKET: 'my/bucket' }, /^MEDIA_S3_BUCKET must be a bucket name/],
    [{ ...S3_ENV, MEDIA_S3_BUCKET: 'my..bucket' }, /^MEDIA_S3_BUCKET must be a bucket name/],
    [{ ...S3_ENV, MEDIA_S3_REGION: 'eu west' }, /^MEDIA_S3_REGION must be a region name/],
    [{ ...S3_ENV, MEDIA_S3_ENDPOINT: 'minio:9000' }, /^MEDIA_S3_ENDPOINT must be an http\(s\) URL/],
    [{ ...S3_ENV, MEDIA_S3_ENDPOINT: 'ftp://minio' }, /^MEDIA_S3_ENDPOINT must be an http\(s\) URL/],
    [
      { ...S3_ENV, MEDIA_S3_ENDPOINT: 'http://minio:9000/?x=1' },
      /^MEDIA_S3_ENDPOINT must be an http\(s\) URL .*no query/,
    ],
    [
      { ...S3_ENV, MEDIA_S3_FORCE_PATH_STYLE: 'yes' },
      /^MEDIA_S3_FORCE_PATH_STYLE must be true or false \(got "yes"\)$/,
    ],
    [{ ...S3_ENV, MEDIA_S3_PREFIX: 'a/../b' }, /^MEDIA_S3_PREFIX must be/],
    [{ ...S3_ENV, MEDIA_S3_PREFIX: 'a//b' }, /^MEDIA_S3_PREFIX must be/],
    [{ ...S3_ENV, MEDIA_S3_PREFIX: 'a b' }, /^MEDIA_S3_PREFIX must be/],
    [
      { ...S3_ENV, MEDIA_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE' },
      /^MEDIA_S3_SECRET_ACCESS_KEY is required when MEDIA_S3_ACCESS_KEY_ID is set$/,
    ],
    [
      { ...S3_ENV, MEDIA_S3_SECRET_ACCESS_KEY: SECRET },
      /^MEDIA_S3_ACCESS_KEY_ID is required when MEDIA_S3_SECRET_ACCESS_KEY is set$/,
    ],
    [{ MEDIA_S3_BUCKET: 'im-media' }, /^MEDIA_S3_BUCKET is set but MEDIA_STORAGE is not: set MEDIA_STORAGE=s3/],
  ])('refuses %j with one problem naming the variable', (env, message) => {
    const problems = problemsOf(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it('ignores the S3 variables when MEDIA_STORAGE=local is chosen explicitly', () => {
    expect(
      loadMediaStorageConfig(
        { MEDIA_STORAGE: 'local', MEDIA_S3_BUCKET: 'im-media', MEDIA_S3_FORCE_PATH_STYLE: 'maybe' },
        [],
      ),
    ).toEqual({ driver: 'local' });
  });

  it('never quotes a secret, nor credentials written into the endpoint', () => {
    const problems = [
      ...problemsOf({ ...S3_ENV, MEDIA_S3_SECRET_ACCESS_KEY: SECRET }),
      ...problemsOf({ ...S3_ENV, MEDIA_S3_ENDPOINT: `http://AKIAEXAMPLE:${encodeURIComponent(SECRET)}@minio:9000` }),
    ];
    expect(problems).toHaveLength(2);
    expect(problems[1]).toMatch(/^MEDIA_S3_ENDPOINT must not contain credentials/);
    for (const problem of problems) {
      expect(problem).not.toContain(SECRET);
      expect(problem).not.toContain(encodeURIComponent(SECRET));
      expect(problem).not.toContain('AKIAEXAMPLE');
    }
  });

  it('accepts production without keys (the default AWS credential chain: instance or task role)', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      SDK_SECRET: 's'.repeat(32),
      JWT_SECRET: 'j'.repeat(32),
      RTC_SDK_APP_ID: '1400000001',
      RTC_CALLBACK_SECRET: 'c'.repeat(16),
      RTC_SECRET_KEY: 'k'.repeat(64),
      ...S3_ENV,
    });
    expect(config.messaging.media.storage).toMatchObject({ driver: 's3', bucket: 'im-media', credentials: null });
  });

  it('is part of the application configuration, its problems reported with the others', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).messaging.media.storage).toEqual({ driver: 'local' });
    try {
      loadConfig({ NODE_ENV: 'test', MEDIA_STORAGE: 's3', MEDIA_S3_FORCE_PATH_STYLE: '1', PORT: 'http' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems;
      expect(problems.filter((p) => /^(MEDIA_S3_BUCKET|MEDIA_S3_FORCE_PATH_STYLE|PORT) /.test(p))).toHaveLength(3);
    }
  });
});
