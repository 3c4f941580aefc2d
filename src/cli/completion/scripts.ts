// Generates the bash, zsh and fish completion scripts from the command tree. The three share
// one design: a few generated lookup functions (subcommands, flags, what a flag's value or an
// argument takes) and a walker that reads the words before the cursor the way commander
// parses them. Values that only the API knows (group, repo, identity and role names and uids)
// come from `pctl __complete <words…>`, which prints one `value<TAB>description` per line.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { allCommands, commandSpec, flagsOf, HELP_FLAG, type CommandSpec, type FlagSpec, type ValueKind } from './spec.js';

export type Shell = 'bash' | 'zsh' | 'fish';

/** The token the scripts use for a value kind: '' (boolean flag), value, file, dir, live, or `choice a b c`. */
function kindToken(v: ValueKind | undefined): string {
  if (!v) return '';
  return v.kind === 'choice' ? `choice ${v.values.join(' ')}` : v.kind;
}

/** POSIX single quotes (bash and zsh). */
function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** fish single quotes: only \ and ' are special inside. */
function fq(s: string): string {
  return `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** First line of a summary, for a completion menu. */
function oneLine(s: string): string {
  return s.split('\n')[0]!.trim();
}

interface Tables {
  root: CommandSpec;
  commands: CommandSpec[];
  /** [parent path, word, child path] for every name and alias. */
  subWords: [string, string, string][];
  /** Flags a command declares itself or inherits from a non-root ancestor (root flags are the fallback). */
  localFlags: Map<string, FlagSpec[]>;
  /** [path, index, kind] for arguments with something to complete. */
  argKinds: [string, number, string][];
}

function tables(root: CommandSpec): Tables {
  const commands = allCommands(root);
  const subWords: [string, string, string][] = [];
  const localFlags = new Map<string, FlagSpec[]>();
  const argKinds: [string, number, string][] = [];
  const rootFlags = new Set(root.flags);
  for (const c of commands) {
    for (const s of c.subcommands) for (const w of [s.name, ...s.aliases]) subWords.push([c.path, w, s.path]);
    localFlags.set(c.path, flagsOf(root, c.path).filter((f) => !rootFlags.has(f) && f !== HELP_FLAG));
    c.args.forEach((a, i) => {
      const k = kindToken(a.value);
      if (k !== 'value') argKinds.push([c.path, i, k]);
    });
  }
  return { root, commands, subWords, localFlags, argKinds };
}

const flagWords = (f: FlagSpec) => [f.short, f.long].filter((w): w is string => Boolean(w));

/** Groups flags by kind token: [[kind, words], …] for the value-taking ones. */
function byKind(flags: readonly FlagSpec[]): [string, string[]][] {
  const m = new Map<string, string[]>();
  for (const f of flags) {
    const k = kindToken(f.value);
    if (!k) continue;
    m.set(k, [...(m.get(k) ?? []), ...flagWords(f)]);
  }
  return [...m];
}

const header = (shell: Shell) =>
  `${shell} completion for pctl. Generated from the command tree by \`npm run gen\` (the same as \`pctl completion ${shell}\`); do not edit.`;

// ---------------------------------------------------------------------------------------- bash / zsh

/** The lookup functions, in the syntax bash and zsh share (case statements, REPLY). */
function shLookups(t: Tables, shell: 'bash' | 'zsh'): string {
  const out: string[] = [];
  out.push('# _pctl_sub PATH WORD: REPLY=the path of subcommand WORD of PATH (names and aliases), or empty.');
  out.push('_pctl_sub() {', '  case "$1:$2" in');
  const byChild = new Map<string, string[]>();
  for (const [parent, word, child] of t.subWords) byChild.set(child, [...(byChild.get(child) ?? []), sq(`${parent}:${word}`)]);
  for (const [child, pats] of byChild) out.push(`    ${pats.join('|')}) REPLY=${sq(child)} ;;`);
  out.push('    *) REPLY= ;;', '  esac', '}', '');

  out.push(
    shell === 'bash'
      ? '# _pctl_subs PATH: REPLY=the subcommand names of PATH.'
      : '# _pctl_subs PATH: reply=(name:summary …) for the subcommands of PATH.',
  );
  out.push('_pctl_subs() {');
  out.push(shell === 'bash' ? '  REPLY=' : '  reply=()');
  out.push('  case "$1" in');
  for (const c of t.commands) {
    if (!c.subcommands.length) continue;
    if (shell === 'bash') out.push(`    ${sq(c.path)}) REPLY=${sq(c.subcommands.map((s) => s.name).join(' '))} ;;`);
    else out.push(`    ${sq(c.path)}) reply=(${c.subcommands.map((s) => sq(`${s.name}:${oneLine(s.summary)}`)).join(' ')}) ;;`);
  }
  out.push('  esac', '}', '');

  const flagItems = (flags: readonly FlagSpec[]) =>
    shell === 'bash'
      ? flags.flatMap(flagWords).join(' ')
      : flags.flatMap((f) => flagWords(f).map((w) => sq(`${w}:${oneLine(f.description)}`))).join(' ');
  const rootFlags = [...t.root.flags, ...flagsOf(t.root, '').slice(t.root.flags.length)];
  out.push(
    shell === 'bash'
      ? '# _pctl_flags PATH: REPLY=the flags PATH accepts (its own, then the global ones).'
      : '# _pctl_flags PATH: reply=(flag:description …) for the flags PATH accepts.',
  );
  out.push('_pctl_flags() {', shell === 'bash' ? '  REPLY=' : '  reply=()', '  case "$1" in');
  for (const c of t.commands) {
    const local = t.localFlags.get(c.path) ?? [];
    if (!local.length || !c.path) continue;
    out.push(shell === 'bash' ? `    ${sq(c.path)}) REPLY=${sq(flagItems(local))} ;;` : `    ${sq(c.path)}) reply=(${flagItems(local)}) ;;`);
  }
  out.push('  esac');
  out.push(shell === 'bash' ? `  REPLY+=${sq(` ${flagItems(rootFlags)}`)}` : `  reply+=(${flagItems(rootFlags)})`);
  out.push('}', '');

  out.push("# _pctl_flag PATH FLAG: REPLY=what FLAG's value takes (value, file, dir, live, 'choice A B …'), empty for a boolean flag.");
  out.push('_pctl_flag() {', '  case "$1 $2" in');
  for (const c of t.commands) {
    if (!c.path) continue;
    for (const [kind, words] of byKind(t.localFlags.get(c.path) ?? [])) {
      out.push(`    ${words.map((w) => sq(`${c.path} ${w}`)).join('|')}) REPLY=${sq(kind)} ;;`);
    }
  }
  out.push('    *)', '      case "$2" in');
  for (const [kind, words] of byKind(t.root.flags)) out.push(`        ${words.map(sq).join('|')}) REPLY=${sq(kind)} ;;`);
  out.push('        *) REPLY= ;;', '      esac ;;', '  esac', '}', '');

  out.push('# _pctl_arg PATH N: REPLY=what positional argument N of PATH takes, or empty.');
  out.push('_pctl_arg() {', '  case "$1 $2" in');
  for (const [path, i, kind] of t.argKinds) out.push(`    ${sq(`${path} ${i}`)}) REPLY=${sq(kind)} ;;`);
  out.push('    *) REPLY= ;;', '  esac', '}');
  return out.join('\n');
}

function bashScript(root: CommandSpec): string {
  const t = tables(root);
  return `# ${header('bash')}
# Install: source <(pctl completion bash)   (in ~/.bashrc), or save it as
#          ~/.local/share/bash-completion/completions/pctl

${shLookups(t, 'bash')}

# _pctl_values KIND: COMPREPLY for a value of that kind; live values come from \`pctl __complete\`.
_pctl_values() {
  local line q
  local -a args=()
  local -i j
  case $1 in
    choice\\ *) COMPREPLY=($(compgen -W "\${1#choice }" -- "$cur")) ;;
    file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
    dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
    live)
      # The words so far (without the '=' that COMP_WORDBREAKS splits off), then the current one.
      for ((j = 1; j < COMP_CWORD; j++)); do
        [[ \${COMP_WORDS[j]} == = ]] || args+=("\${COMP_WORDS[j]}")
      done
      args+=("$cur")
      while IFS= read -r line; do
        [[ -n $line ]] || continue
        printf -v q '%q' "\${line%%$'\\t'*}"
        COMPREPLY+=("$q")
      done < <(PCTL_COMPLETE_SHELL=bash pctl __complete "\${args[@]}" 2>/dev/null)
      ;;
  esac
}

_pctl() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cmd= kind= REPLY w
  local -i i npos=0
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    [[ $w == = ]] && continue
    if [[ $w == -?* ]]; then
      _pctl_flag "$cmd" "\${w%%=*}"
      [[ -z $REPLY || $w == *=* ]] && continue
      # --flag VALUE, or --flag = VALUE when COMP_WORDBREAKS split --flag=VALUE
      [[ \${COMP_WORDS[i+1]} == = ]] && ((i++))
      if ((i + 1 >= COMP_CWORD)); then kind=$REPLY; break; fi
      ((i++))
      continue
    fi
    if ((npos == 0)); then
      _pctl_sub "$cmd" "$w"
      if [[ -n $REPLY ]]; then cmd=$REPLY; continue; fi
    fi
    ((npos++))
  done
  if [[ -n $kind ]]; then
    [[ $cur == = ]] && cur=
    _pctl_values "$kind"
    return 0
  fi
  if [[ $cur == -* ]]; then
    _pctl_flags "$cmd"
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    return 0
  fi
  if ((npos == 0)); then
    _pctl_subs "$cmd"
    if [[ -n $REPLY ]]; then
      COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
      return 0
    fi
  fi
  _pctl_arg "$cmd" "$npos"
  [[ -n $REPLY ]] && _pctl_values "$REPLY"
  return 0
}

complete -F _pctl pctl
`;
}

function zshScript(root: CommandSpec): string {
  const t = tables(root);
  return `#compdef pctl
# ${header('zsh')}
# Install: pctl completion zsh > "\${fpath[1]}/_pctl"   (then start a new shell), or
#          source <(pctl completion zsh)                 (after compinit, in ~/.zshrc)

${shLookups(t, 'zsh')}

# _pctl_values KIND: offers a value of that kind; live values come from \`pctl __complete\`.
_pctl_values() {
  local line
  local -a cands
  case $1 in
    choice\\ *) cands=(\${=1#choice }); _describe -t values 'value' cands ;;
    file) _files ;;
    dir) _files -/ ;;
    live)
      for line in \${(f)"$(pctl __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)"}; do
        if [[ $line == *$'\\t'* ]]; then
          cands+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
        else
          cands+=("\${line//:/\\\\:}")
        fi
      done
      (( \${#cands} )) && _describe -t values 'value' cands
      ;;
  esac
}

_pctl() {
  # Not "path": in zsh that is $PATH.
  local cur=\${words[CURRENT]} cmd= kind= REPLY w
  local -i i npos=0
  local -a reply items
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    if [[ $w == -?* ]]; then
      _pctl_flag "$cmd" "\${w%%=*}"
      [[ -z $REPLY || $w == *=* ]] && continue
      if ((i + 1 >= CURRENT)); then kind=$REPLY; break; fi
      ((i++))
      continue
    fi
    if ((npos == 0)); then
      _pctl_sub "$cmd" "$w"
      if [[ -n $REPLY ]]; then cmd=$REPLY; continue; fi
    fi
    ((npos++))
  done
  if [[ -z $kind && $cur == -?*=* ]]; then
    # --flag=VALUE: complete VALUE
    _pctl_flag "$cmd" "\${cur%%=*}"
    kind=$REPLY
    [[ -n $kind ]] && compset -P '*=' 2>/dev/null
  fi
  if [[ -n $kind ]]; then
    _pctl_values "$kind"
    return
  fi
  if [[ $cur == -* ]]; then
    _pctl_flags "$cmd"
    items=("\${reply[@]}")
    _describe -t options 'option' items
    return
  fi
  if ((npos == 0)); then
    _pctl_subs "$cmd"
    if (( \${#reply} )); then
      items=("\${reply[@]}")
      _describe -t commands 'command' items
      return
    fi
  fi
  _pctl_arg "$cmd" "$npos"
  [[ -n $REPLY ]] && _pctl_values "$REPLY"
}

if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  # autoloaded from $fpath: this file is the body of _pctl
  _pctl "$@"
else
  # sourced
  compdef _pctl pctl
fi
`;
}

function fishScript(root: CommandSpec): string {
  const t = tables(root);
  const out: string[] = [];
  out.push('function __pctl_sub --description "the path of subcommand WORD of PATH"', '    switch "$argv[1]:$argv[2]"');
  const byChild = new Map<string, string[]>();
  for (const [parent, word, child] of t.subWords) byChild.set(child, [...(byChild.get(child) ?? []), fq(`${parent}:${word}`)]);
  for (const [child, pats] of byChild) out.push(`        case ${pats.join(' ')}`, `            echo ${fq(child)}`);
  out.push('    end', 'end', '');

  out.push('function __pctl_subs --description "the subcommands of PATH, with summaries"', '    switch "$argv[1]"');
  for (const c of t.commands) {
    if (!c.subcommands.length) continue;
    out.push(`        case ${fq(c.path)}`);
    out.push(`            printf '%s\\t%s\\n' ${c.subcommands.map((s) => `${fq(s.name)} ${fq(oneLine(s.summary))}`).join(' ')}`);
  }
  out.push('    end', 'end', '');

  const printFlags = (flags: readonly FlagSpec[]) =>
    `printf '%s\\t%s\\n' ${flags.flatMap((f) => flagWords(f).map((w) => `${fq(w)} ${fq(oneLine(f.description))}`)).join(' ')}`;
  out.push('function __pctl_flags --description "the flags PATH accepts, with descriptions"', '    switch "$argv[1]"');
  for (const c of t.commands) {
    const local = t.localFlags.get(c.path) ?? [];
    if (!local.length || !c.path) continue;
    out.push(`        case ${fq(c.path)}`, `            ${printFlags(local)}`);
  }
  out.push('    end', `    ${printFlags(flagsOf(t.root, ''))}`, 'end', '');

  out.push(
    "function __pctl_flag --description \"what a flag's value takes: value, file, dir, live, 'choice A B', or nothing\"",
    '    switch "$argv[1] $argv[2]"',
  );
  for (const c of t.commands) {
    if (!c.path) continue;
    for (const [kind, words] of byKind(t.localFlags.get(c.path) ?? [])) {
      out.push(`        case ${words.map((w) => fq(`${c.path} ${w}`)).join(' ')}`, `            echo ${fq(kind)}`);
    }
  }
  out.push('        case \'*\'', '            switch "$argv[2]"');
  for (const [kind, words] of byKind(t.root.flags)) out.push(`                case ${words.map(fq).join(' ')}`, `                    echo ${fq(kind)}`);
  out.push('            end', '    end', 'end', '');

  out.push('function __pctl_arg --description "what positional argument N of PATH takes"', '    switch "$argv[1] $argv[2]"');
  for (const [path, i, kind] of t.argKinds) out.push(`        case ${fq(`${path} ${i}`)}`, `            echo ${fq(kind)}`);
  out.push('    end', 'end');

  return `# ${header('fish')}
# Install: pctl completion fish > ~/.config/fish/completions/pctl.fish

${out.join('\n')}

function __pctl_values --description "values of a kind; live ones come from pctl __complete"
    set -l pre $argv[2]
    switch $argv[1]
        case 'choice *'
            for v in (string split ' ' -- (string replace 'choice ' '' -- $argv[1]))
                echo $pre$v
            end
        case file
            __fish_complete_path (commandline -ct)
        case dir
            __fish_complete_directories (commandline -ct)
        case live
            set -l words (commandline -opc) (commandline -ct)
            set -e words[1]
            for line in (pctl __complete $words 2>/dev/null)
                echo $pre$line
            end
    end
end

function __pctl_complete --description "completions for the pctl command line"
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l cmd ''
    set -l kind ''
    set -l npos 0
    set -l n (count $tokens)
    set -l i 2
    while test $i -le $n
        set -l w $tokens[$i]
        if string match -qr -- '^-.' $w
            set -l k (__pctl_flag "$cmd" (string replace -r -- '=.*' '' $w))
            if test -n "$k"; and not string match -q -- '*=*' $w
                if test $i -eq $n
                    set kind $k
                    break
                end
                set i (math $i + 1)
            end
        else
            set -l sub ''
            if test $npos -eq 0
                set sub (__pctl_sub "$cmd" $w)
            end
            if test -n "$sub"
                set cmd $sub
            else
                set npos (math $npos + 1)
            end
        end
        set i (math $i + 1)
    end
    set -l pre ''
    if test -z "$kind"; and string match -qr -- '^-[^=]+=' $cur
        # --flag=VALUE: complete VALUE, keeping the prefix
        set kind (__pctl_flag "$cmd" (string replace -r -- '=.*' '' $cur))
        set pre (string replace -r -- '=.*' '=' $cur)
    end
    if test -n "$kind"
        __pctl_values "$kind" "$pre"
        return
    end
    if string match -q -- '-*' $cur
        __pctl_flags "$cmd"
        return
    end
    if test $npos -eq 0
        set -l subs (__pctl_subs "$cmd")
        if test (count $subs) -gt 0
            printf '%s\\n' $subs
            return
        end
    end
    set kind (__pctl_arg "$cmd" $npos)
    test -n "$kind"; and __pctl_values "$kind" ''
end

complete -c pctl -e
complete -c pctl -f -a '(__pctl_complete)'
`;
}

export function completionScript(shell: Shell, root: CommandSpec): string {
  return shell === 'bash' ? bashScript(root) : shell === 'zsh' ? zshScript(root) : fishScript(root);
}

/** `pctl completion SHELL`. */
export async function runCompletion(ctx: Context, shell: Shell, program: Command): Promise<number> {
  ctx.io.stdout.write(completionScript(shell, commandSpec(program)));
  return 0;
}
