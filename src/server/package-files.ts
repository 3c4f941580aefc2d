// Where the files pctl ships beside its code (the console's page, the sign-in templates) are
// found. This module sits two levels below the package root in src/, in dist/ and in the
// esbuild bundle (dist/bundle/) alike, so one relative URL finds the root from all three.
export const PACKAGE_ROOT = new URL('../../', import.meta.url);
