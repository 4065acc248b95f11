// The GitHub API's token goes to that API's origin alone: not to where its answers redirect, not to a mirror.
import { afterEach, describe, expect, it } from 'vitest';
import { forgetCredentials, rememberCredentials, requestAuth } from '../../src/net/credentials.js';
import { useGithubToken } from '../../src/cli/setup-options.js';

afterEach(() => forgetCredentials());

describe('the GitHub token', () => {
  it('is a bearer token for api.github.com and nothing else', () => {
    useGithubToken({ GITHUB_TOKEN: 'ghs_secret' });
    expect(requestAuth('https://api.github.com/repos/intel/compute-runtime/releases').authorization).toBe('Bearer ghs_secret');
    expect(requestAuth('https://objects.githubusercontent.com/release-asset').authorization).toBeUndefined();
    expect(requestAuth('https://github.com/intel/compute-runtime/releases/download/x.deb').authorization).toBeUndefined();
    expect(requestAuth('http://api.github.com/repos').authorization).toBeUndefined();
  });

  it('XPU_SETUP_GITHUB_TOKEN wins over GITHUB_TOKEN; GITHUB_API_URL (GitHub Enterprise Server) moves where it goes', () => {
    useGithubToken({ XPU_SETUP_GITHUB_TOKEN: 'mine', GITHUB_TOKEN: 'theirs', GITHUB_API_URL: 'https://ghe.example/api/v3' });
    expect(requestAuth('https://ghe.example/api/v3/repos/x/y/releases').authorization).toBe('Bearer mine');
    expect(requestAuth('https://api.github.com/repos/x/y/releases').authorization).toBeUndefined();
  });

  it("an explicit token (the action's input) is used as given; credentials written for that origin still win", () => {
    useGithubToken({}, 'from-input');
    expect(requestAuth('https://api.github.com/x').authorization).toBe('Bearer from-input');
    rememberCredentials('https://me:pw@api.github.com/');
    expect(requestAuth('https://api.github.com/x').authorization).toBe(`Basic ${Buffer.from('me:pw').toString('base64')}`);
  });

  it('no token, no header', () => {
    useGithubToken({});
    expect(requestAuth('https://api.github.com/x').authorization).toBeUndefined();
  });
});
