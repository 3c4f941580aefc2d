// Where the files pctl ships beside its code (the console's page, the sign-in templates) are
// found: the nearest folder above this module that holds package.json. Found by looking, not
// by a fixed number of `../`, because this module sits at another depth in src/, in dist/ and
// in the esbuild bundle (dist/bundle/).
import { existsSync } from 'node:fs';

function packageRoot(): URL {
  for (let dir = new URL('./', import.meta.url); ; ) {
    if (existsSync(new URL('package.json', dir))) return dir;
    const up = new URL('../', dir);
    if (up.href === dir.href) throw new Error(`no package.json above ${import.meta.url}`);
    dir = up;
  }
}

export const PACKAGE_ROOT = packageRoot();
