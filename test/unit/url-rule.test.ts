// The rule for URLs an index hands out, and credentials in URLs: resolved, refused, redacted, sent to their origin only.
import { afterEach, describe, expect, it } from 'vitest';
import { forgetCredentials, redactText, redactUrl, rememberCredentials, requestAuth } from '../../src/net/credentials.js';
import { isLinkLocal, urlFromIndex } from '../../src/net/url-rule.js';

const SHARDS = 'https://conda.example/ch/linux-64/repodata_shards.msgpack.zst';

describe('urlFromIndex', () => {
  it('resolves relative and absolute http(s) URLs against the document', () => {
    expect(urlFromIndex('./', SHARDS, 'info.base_url')).toBe('https://conda.example/ch/linux-64/');
    expect(urlFromIndex('../shards/', SHARDS, 'info.shards_base_url')).toBe('https://conda.example/ch/shards/');
    expect(urlFromIndex('https://files.example/x/', SHARDS, 'info.base_url')).toBe('https://files.example/x/');
  });

  it('refuses a local path from a remote index, naming the field and the document, not retryable', () => {
    expect(() => urlFromIndex('file:///etc/', SHARDS, 'info.base_url')).toThrow(
      expect.objectContaining({ code: 'URL_REFUSED', message: expect.stringContaining(`info.base_url of ${SHARDS} names file:///etc/`), details: expect.objectContaining({ retryable: false }) }),
    );
  });

  it('takes a local path from a local index (a bundle)', () => {
    expect(urlFromIndex('pkgs/a.conda', 'file:///b/conda/linux-64/repodata.json', 'x')).toBe('file:///b/conda/linux-64/pkgs/a.conda');
  });

  it('refuses other schemes, a step down from https, and link-local hosts the document is not on', () => {
    for (const [v, why] of [
      ['ftp://h/x', /only http and https/],
      ['http://conda.example/ch/', /step down from https/],
      ['https://169.254.169.254/latest/', /link-local/],
      ['https://[fe80::1]/x', /link-local/],
    ] as const) {
      expect(() => urlFromIndex(v, SHARDS, 'f')).toThrow(expect.objectContaining({ code: 'URL_REFUSED', message: expect.stringMatching(why) }));
    }
    expect(urlFromIndex('./x', 'http://169.254.1.1/ch/repodata.json', 'f')).toBe('http://169.254.1.1/ch/x');
    expect([isLinkLocal('169.254.0.1'), isLinkLocal('[fe80::1]'), isLinkLocal('10.0.0.1'), isLinkLocal('fec0::1')]).toEqual([true, true, false, false]);
  });

  it('an IPv4 link-local address inside IPv6, and IPv4 in other spellings, is link-local too', () => {
    for (const v of ['https://[::ffff:169.254.10.20]/x', 'https://[0:0:0:0:0:ffff:a9fe:0101]/x', 'https://[64:ff9b::169.254.0.9]/x', 'https://0xa9fe0001/x', 'https://2852039166/x', 'https://169.254.1.1./x']) {
      expect(() => urlFromIndex(v, SHARDS, 'f'), v).toThrow(expect.objectContaining({ code: 'URL_REFUSED', message: expect.stringMatching(/link-local/) }));
    }
    expect([isLinkLocal('::ffff:169.254.169.254'), isLinkLocal('::ffff:a9fe:a9fe'), isLinkLocal('::ffff:a9ff:1'), isLinkLocal('::ffff:10.0.0.1')]).toEqual([true, true, false, false]);
  });
});

describe('credentials', () => {
  afterEach(() => forgetCredentials());

  it('redacts a password, or a user name alone (a token)', () => {
    expect(redactUrl('https://alice:s3cret@host/ch')).toBe('https://alice:***@host/ch');
    expect(redactUrl('https://tok3n@host/ch')).toBe('https://***@host/ch');
    expect(redactUrl('https://host/ch')).toBe('https://host/ch');
    expect(redactText('read https://alice:s3cret@host/ch and http://t0k@h2/x')).toBe('read https://alice:***@host/ch and http://***@h2/x');
  });

  it('sends Basic auth to the origin the user named, and to no other', () => {
    const shown = rememberCredentials('https://alice:s3cret@host/ch');
    expect(shown).toBe('https://alice:***@host/ch');
    const basic = `Basic ${Buffer.from('alice:s3cret').toString('base64')}`;
    expect(requestAuth(`${shown}/linux-64/repodata.json`)).toEqual({ url: 'https://host/ch/linux-64/repodata.json', authorization: basic });
    expect(requestAuth('https://host/files/a.conda')).toEqual({ url: 'https://host/files/a.conda', authorization: basic });
    expect(requestAuth('https://other/files/a.conda')).toEqual({ url: 'https://other/files/a.conda' });
    expect(requestAuth('http://host/ch/x')).toEqual({ url: 'http://host/ch/x' });
    expect(requestAuth('https://host:8443/ch/x')).toEqual({ url: 'https://host:8443/ch/x' });
  });
});
