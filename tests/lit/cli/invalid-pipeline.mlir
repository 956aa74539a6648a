// An invalid pipeline is one `jaxc-opt: error:` naming the problem, the
// pipeline, and a caret under the offending element; exit status 1.
// RUN: not jaxc-opt %s --pass-pipeline='builtin.module(cse,no-such-pass)' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNKNOWN
// UNKNOWN:      {{^}}jaxc-opt: error: invalid pass pipeline: 'no-such-pass' does not refer to a registered pass or pass pipeline
// UNKNOWN-NEXT: {{^}}  builtin.module(cse,no-such-pass){{$}}
// UNKNOWN-NEXT: {{^}}                     ^{{$}}

// RUN: not jaxc-opt %s --pass-pipeline='builtin.module(func.func(cse),canonicalize' 2>&1 | FileCheck %s --strict-whitespace --check-prefix=UNBALANCED
// UNBALANCED:      {{^}}jaxc-opt: error: invalid pass pipeline: unbalanced parentheses: '(' of 'builtin.module' is never closed
// UNBALANCED-NEXT: {{^}}  builtin.module(func.func(cse),canonicalize{{$}}
// UNBALANCED-NEXT: {{^}}                ^{{$}}

// RUN: not jaxc-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=3)' 2>&1 | FileCheck %s --check-prefix=BRACE
// BRACE: jaxc-opt: error: invalid pass pipeline: missing closing '}' for the options of 'canonicalize'

// RUN: not jaxc-opt %s --pass-pipeline='builtin.module(cse))' 2>&1 | FileCheck %s --check-prefix=TRAILING
// TRAILING: jaxc-opt: error: invalid pass pipeline: unexpected ')' after the pipeline

// RUN: not jaxc-opt %s --pass-pipeline='builtin.module(cse,,cse)' 2>&1 | FileCheck %s --check-prefix=EMPTY-ELEMENT
// EMPTY-ELEMENT: jaxc-opt: error: invalid pass pipeline: expected a pass or op name, found ','

// RUN: not jaxc-opt %s --pass-pipeline='canonicalize' 2>&1 | FileCheck %s --check-prefix=NO-ANCHOR
// NO-ANCHOR: jaxc-opt: error: invalid pass pipeline: expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'

// RUN: not jaxc-opt %s --pass-pipeline='func.func(cse)' 2>&1 | FileCheck %s --check-prefix=WRONG-ROOT
// WRONG-ROOT: jaxc-opt: error: invalid pass pipeline: the pipeline is anchored on 'func.func', but jaxc-opt runs it on a 'builtin.module'; nest it: builtin.module(func.func(...))

// Options: unknown ones and bad values, on upstream and on project passes.
// RUN: not jaxc-opt %s --pass-pipeline='builtin.module(canonicalize{no-such-option=1})' 2>&1 | FileCheck %s --check-prefix=UPSTREAM-OPTION
// UPSTREAM-OPTION: jaxc-opt: error: invalid pass pipeline: <Pass-Options-Parser>: no such option no-such-option; failed to add `canonicalize` with options `no-such-option=1`
// RUN: not jaxc-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=many})' 2>&1 | FileCheck %s --check-prefix=UPSTREAM-VALUE
// UPSTREAM-VALUE: jaxc-opt: error: invalid pass pipeline: for the --max-iterations option: 'many' value invalid for long argument!; failed to add `canonicalize` with options `max-iterations=many`
// RUN: not jaxc-opt %s --pass-pipeline='builtin.module(jaxc-cleanup{no-such-option=1})' 2>&1 | FileCheck %s --check-prefix=PROJECT-OPTION
// PROJECT-OPTION: jaxc-opt: error: invalid pass pipeline: pass 'jaxc-cleanup' has no option 'no-such-option' (its options: max-iterations)
// RUN: not jaxc-opt %s --jaxc-cleanup=max-iterations=many 2>&1 | FileCheck %s --check-prefix=PROJECT-VALUE
// PROJECT-VALUE: jaxc-opt: error: invalid pass pipeline: option 'max-iterations' expects int, got 'many'

// A pass for one kind of op needs its anchor in --pass-pipeline (per-pass
// flags nest it implicitly, as in mlir-opt).
// RUN: not jaxc-opt %s --pass-pipeline='builtin.module(affine-scalrep)' 2>&1 | FileCheck %s --check-prefix=NEST
// NEST: jaxc-opt: error: invalid pass pipeline: Can't add pass 'AffineScalarReplacement' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

// An unknown per-pass flag is an unknown pass; a pipeline and flags together is an error.
// RUN: not jaxc-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: jaxc-opt: error: invalid pass pipeline: 'no-such-pass' does not refer to a registered pass or pass pipeline
// RUN: not jaxc-opt %s --pass-pipeline='builtin.module(cse)' --canonicalize 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: jaxc-opt: error: '--pass-pipeline' option can't be used with individual pass options

func.func @f() {
  return
}
