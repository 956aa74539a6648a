// RUN: jaxc-opt %s --jaxc-outline-deep-regions=max-depth=1 | FileCheck %s --check-prefix=ONE
// RUN: jaxc-opt %s --jaxc-outline-deep-regions=max-depth=2 | FileCheck %s --check-prefix=TWO
// RUN: jaxc-opt %s --jaxc-outline-deep-regions | FileCheck %s --check-prefix=DEFAULT
// RUN: not jaxc-opt %s --jaxc-outline-deep-regions=max-depth=0 2>&1 | FileCheck %s --check-prefix=ZERO
// The nest runs the same after outlining, through every stage:
// RUN: jaxc-opt %s --jaxc-outline-deep-regions=max-depth=1 | jaxc-opt --run=nest --arg='[1,2,3]' | FileCheck %s --check-prefix=RESULT
// RUN: jaxc-opt %s --run=nest --arg='[1,2,3]' | FileCheck %s --check-prefix=RESULT

// A scan holding a while holding a cond (three deep). With max-depth=1 the
// scan's body moves into a function, whose while's body moves into another,
// whose cond's second branch (the one holding a cond) moves into a third; the
// cond's first branch holds no control flow and stays. With max-depth=2
// only the while's body (which holds the cond at depth 3) moves.

// ONE-LABEL: func.func @nest(
// ONE: jaxc.scan
// ONE-NEXT: ^bb0(%[[C:.*]]: tensor<f32>, %[[X:.*]]: tensor<f32>):
// ONE-NEXT: %[[R:.*]]:2 = func.call @[[SCAN:jaxc_region[_0-9]*]](%[[C]], %[[X]]) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
// ONE-NEXT: jaxc.yield %[[R]]#0, %[[R]]#1
// ONE-NOT: jaxc.while
// ONE: return
// ONE-DAG: func.func private @[[SCAN]](%{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
// ONE-DAG: func.func private @{{jaxc_region[_0-9]*}}(%{{.*}}: tensor<i1>, %{{.*}}: tensor<f32>) -> (tensor<i1>, tensor<f32>) {
// ONE-DAG: func.func private @{{jaxc_region[_0-9]*}}(%{{.*}}: tensor<f32>) -> tensor<f32> {
// ONE-NOT: func.func private

// TWO-LABEL: func.func @nest(
// TWO: jaxc.scan
// TWO: jaxc.while
// TWO: } do {
// TWO-NEXT: ^bb0(%[[P:.*]]: tensor<i1>, %[[V:.*]]: tensor<f32>):
// TWO-NEXT: %[[R:.*]]:2 = func.call @[[BODY:jaxc_region[_0-9]*]](%[[P]], %[[V]])
// TWO: func.func private @[[BODY]](%{{.*}}: tensor<i1>, %{{.*}}: tensor<f32>) -> (tensor<i1>, tensor<f32>) {
// TWO: jaxc.cond
// TWO: jaxc.cond
// TWO-NOT: func.func private

// DEFAULT-NOT: func.call
// DEFAULT-NOT: func.func private

// ZERO: error: jaxc-outline-deep-regions: max-depth must be at least 1

// The scan adds, over xs, the loop's result on each element; the loop runs
// its body once (the flag goes false); the cond, its flag true, takes its
// second branch, which doubles the element where it is positive.
// RESULT: result 0: array(12., dtype=float32)
func.func @nest(%xs: tensor<3xf32>) -> tensor<f32> {
  %zero = jaxc.constant dense<0.0> : tensor<f32>
  %c, %ys = jaxc.scan init(%zero : tensor<f32>) xs(%xs : tensor<3xf32>) length = 3 -> tensor<f32>, tensor<3xf32> {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %p = jaxc.constant dense<true> : tensor<i1>
    %w:2 = jaxc.while (%p, %x : tensor<i1>, tensor<f32>) cond {
    ^bb0(%go: tensor<i1>, %v: tensor<f32>):
      jaxc.yield %go : tensor<i1>
    } do {
    ^bb0(%go: tensor<i1>, %v: tensor<f32>):
      %no = jaxc.constant dense<false> : tensor<i1>
      %d = jaxc.cond %go (%v) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
      ^bb0(%a: tensor<f32>):
        jaxc.yield %a : tensor<f32>
      }, {
      ^bb0(%a: tensor<f32>):
        %z = jaxc.constant dense<0.0> : tensor<f32>
        %pos = jaxc.compare gt, %a, %z : tensor<f32>
        %e = jaxc.cond %pos (%a) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
        ^bb0(%b: tensor<f32>):
          jaxc.yield %b : tensor<f32>
        }, {
        ^bb0(%b: tensor<f32>):
          %b2 = jaxc.add %b, %b : tensor<f32>
          jaxc.yield %b2 : tensor<f32>
        }
        jaxc.yield %e : tensor<f32>
      }
      jaxc.yield %no, %d : tensor<i1>, tensor<f32>
    }
    %s = jaxc.add %c, %w#1 : tensor<f32>
    jaxc.yield %s, %s : tensor<f32>, tensor<f32>
  }
  return %c : tensor<f32>
}
