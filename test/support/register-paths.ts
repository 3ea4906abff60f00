import { register } from 'tsconfig-paths';

// globalSetup runs outside jest's module mapper: resolve @app/* the way tsconfig does.
register({ baseUrl: `${__dirname}/../..`, paths: { '@app/*': ['libs/*/src'] } });
