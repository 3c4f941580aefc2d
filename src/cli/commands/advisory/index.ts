// pctl advisories documents | metadata: the Integrations domain's advisory data (read-only),
// verbs of `pctl advisories` beside the Vulnerabilities domain's list and get (one noun for
// advisories; `pctl advisory`, their old group, is an alias of it).
import { defineCommand, flag } from '../../command.js';

export const documentsFlags = {
  package: flag.string('--package <name>', 'only the document of this package'),
  cve: flag.list('--cve <id>', 'only advisories with this id or alias (repeatable: any of them)'),
};

export const metadataFlags = {
  id: flag.list('--id <id>', 'only this vulnerability id, e.g. CVE-2021-44228 (repeatable: any of them)'),
};

export const advisoryCommands = [
    defineCommand({
      name: 'documents',
      flags: documentsFlags,
      help: {
        summary: 'list advisory documents (one row per advisory)',
        description: 'List advisory documents, one row per advisory with its latest event; -o json prints the documents with every event.',
        examples: [
          ['every advisory of a package', 'pctl advisories documents --package openssl'],
          ['the advisories about two CVEs', 'pctl advisories documents --cve CVE-2024-5535 --cve CVE-2024-2511 -o yaml'],
        ],
      },
      load: () => import('./documents.js'),
    }),
    defineCommand({
      name: 'metadata',
      paging: true,
      flags: metadataFlags,
      help: {
        summary: 'list vulnerability metadata',
        description: 'List vulnerability metadata: summary, references and severities (CVSS scores), every page.',
        examples: [['one CVE, as YAML', 'pctl advisories metadata --id CVE-2024-42005 -o yaml']],
      },
      load: () => import('./metadata.js'),
    }),
];
