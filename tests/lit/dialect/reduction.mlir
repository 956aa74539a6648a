// Round-trip tests for reduce (every kind), argmax, argmin, cumulative and
// sort. reduce removes `dims` from the shape; argmax/argmin remove `axis`.
// RUN: jaxc-opt %s | jaxc-opt | FileCheck %s
// RUN: jaxc-opt %s --mlir-print-op-generic | jaxc-opt | FileCheck %s

// CHECK-LABEL: func.func @reduce_kinds(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[I:[a-z0-9_]+]]: tensor<4x5xi32>, %[[P:[a-z0-9_]+]]: tensor<3x2xi1>) -> (tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<4xi32>, tensor<5xi32>, tensor<3xi1>, tensor<i1>)
// CHECK-NEXT: %[[SUM:[a-z0-9_]+]] = jaxc.reduce sum %[[X]], dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
// CHECK-NEXT: %[[PROD:[a-z0-9_]+]] = jaxc.reduce prod %[[X]], dims = [0] : tensor<2x3xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[MAX:[a-z0-9_]+]] = jaxc.reduce max %[[X]], dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
// CHECK-NEXT: %[[MIN:[a-z0-9_]+]] = jaxc.reduce min %[[X]], dims = [0, 1] : tensor<2x3xf32> -> tensor<f32>
// CHECK-NEXT: %[[AND:[a-z0-9_]+]] = jaxc.reduce and %[[I]], dims = [1] : tensor<4x5xi32> -> tensor<4xi32>
// CHECK-NEXT: %[[OR:[a-z0-9_]+]] = jaxc.reduce or %[[I]], dims = [0] : tensor<4x5xi32> -> tensor<5xi32>
// CHECK-NEXT: %[[ALL:[a-z0-9_]+]] = jaxc.reduce and %[[P]], dims = [1] : tensor<3x2xi1> -> tensor<3xi1>
// CHECK-NEXT: %[[ANY:[a-z0-9_]+]] = jaxc.reduce or %[[P]], dims = [0, 1] : tensor<3x2xi1> -> tensor<i1>
// CHECK-NEXT: return %[[SUM]], %[[PROD]], %[[MAX]], %[[MIN]], %[[AND]], %[[OR]], %[[ALL]], %[[ANY]] : tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<4xi32>, tensor<5xi32>, tensor<3xi1>, tensor<i1>
func.func @reduce_kinds(%x: tensor<2x3xf32>, %i: tensor<4x5xi32>, %p: tensor<3x2xi1>) -> (tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<4xi32>, tensor<5xi32>, tensor<3xi1>, tensor<i1>) {
  %sum = jaxc.reduce sum %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %prod = jaxc.reduce prod %x, dims = [0] : tensor<2x3xf32> -> tensor<3xf32>
  %max = jaxc.reduce max %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %min = jaxc.reduce min %x, dims = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %and = jaxc.reduce and %i, dims = [1] : tensor<4x5xi32> -> tensor<4xi32>
  %or = jaxc.reduce or %i, dims = [0] : tensor<4x5xi32> -> tensor<5xi32>
  %all = jaxc.reduce and %p, dims = [1] : tensor<3x2xi1> -> tensor<3xi1>
  %any = jaxc.reduce or %p, dims = [0, 1] : tensor<3x2xi1> -> tensor<i1>
  return %sum, %prod, %max, %min, %and, %or, %all, %any : tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<4xi32>, tensor<5xi32>, tensor<3xi1>, tensor<i1>
}

// CHECK-LABEL: func.func @reduce_types(
// CHECK-SAME: %[[H:[a-z0-9_]+]]: tensor<2x3x4xf16>, %[[B:[a-z0-9_]+]]: tensor<5xbf16>, %[[D:[a-z0-9_]+]]: tensor<f64>, %[[U:[a-z0-9_]+]]: tensor<3x2xui8>, %[[L:[a-z0-9_]+]]: tensor<2x2xi64>, %[[E:[a-z0-9_]+]]: tensor<0x3xf32>, %[[V:[a-z0-9_]+]]: tensor<4xui64>) -> (tensor<3xf16>, tensor<bf16>, tensor<f64>, tensor<2xui8>, tensor<2xi64>, tensor<3xf32>, tensor<0xf32>, tensor<ui64>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.reduce sum %[[H]], dims = [0, 2] : tensor<2x3x4xf16> -> tensor<3xf16>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.reduce max %[[B]], dims = [0] : tensor<5xbf16> -> tensor<bf16>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.reduce prod %[[D]], dims = [] : tensor<f64> -> tensor<f64>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = jaxc.reduce min %[[U]], dims = [0] : tensor<3x2xui8> -> tensor<2xui8>
// CHECK-NEXT: %[[K:[a-z0-9_]+]] = jaxc.reduce prod %[[L]], dims = [1] : tensor<2x2xi64> -> tensor<2xi64>
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = jaxc.reduce sum %[[E]], dims = [0] : tensor<0x3xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = jaxc.reduce max %[[E]], dims = [1] : tensor<0x3xf32> -> tensor<0xf32>
// CHECK-NEXT: %[[O:[a-z0-9_]+]] = jaxc.reduce or %[[V]], dims = [0] : tensor<4xui64> -> tensor<ui64>
// CHECK-NEXT: return %[[A]], %[[C]], %[[F]], %[[G]], %[[K]], %[[M]], %[[N]], %[[O]] : tensor<3xf16>, tensor<bf16>, tensor<f64>, tensor<2xui8>, tensor<2xi64>, tensor<3xf32>, tensor<0xf32>, tensor<ui64>
func.func @reduce_types(%h: tensor<2x3x4xf16>, %b: tensor<5xbf16>, %d: tensor<f64>, %u: tensor<3x2xui8>, %l: tensor<2x2xi64>, %e: tensor<0x3xf32>, %v: tensor<4xui64>) -> (tensor<3xf16>, tensor<bf16>, tensor<f64>, tensor<2xui8>, tensor<2xi64>, tensor<3xf32>, tensor<0xf32>, tensor<ui64>) {
  %a = jaxc.reduce sum %h, dims = [0, 2] : tensor<2x3x4xf16> -> tensor<3xf16>
  %c = jaxc.reduce max %b, dims = [0] : tensor<5xbf16> -> tensor<bf16>
  %f = jaxc.reduce prod %d, dims = [] : tensor<f64> -> tensor<f64>
  %g = jaxc.reduce min %u, dims = [0] : tensor<3x2xui8> -> tensor<2xui8>
  %k = jaxc.reduce prod %l, dims = [1] : tensor<2x2xi64> -> tensor<2xi64>
  %m = jaxc.reduce sum %e, dims = [0] : tensor<0x3xf32> -> tensor<3xf32>
  %n = jaxc.reduce max %e, dims = [1] : tensor<0x3xf32> -> tensor<0xf32>
  %o = jaxc.reduce or %v, dims = [0] : tensor<4xui64> -> tensor<ui64>
  return %a, %c, %f, %g, %k, %m, %n, %o : tensor<3xf16>, tensor<bf16>, tensor<f64>, tensor<2xui8>, tensor<2xi64>, tensor<3xf32>, tensor<0xf32>, tensor<ui64>
}

// CHECK-LABEL: func.func @argmax_argmin(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[V:[a-z0-9_]+]]: tensor<7xi8>, %[[U:[a-z0-9_]+]]: tensor<4x2x3xui16>, %[[P:[a-z0-9_]+]]: tensor<5xi1>) -> (tensor<2xi32>, tensor<3xi64>, tensor<ui32>, tensor<2x3xi32>, tensor<4x2xi16>, tensor<i32>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.argmax %[[X]], axis = 1 : tensor<2x3xf32> -> tensor<2xi32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.argmin %[[X]], axis = 0 : tensor<2x3xf32> -> tensor<3xi64>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.argmax %[[V]], axis = 0 : tensor<7xi8> -> tensor<ui32>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = jaxc.argmin %[[U]], axis = 0 : tensor<4x2x3xui16> -> tensor<2x3xi32>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = jaxc.argmax %[[U]], axis = 2 : tensor<4x2x3xui16> -> tensor<4x2xi16>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = jaxc.argmin %[[P]], axis = 0 : tensor<5xi1> -> tensor<i32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]] : tensor<2xi32>, tensor<3xi64>, tensor<ui32>, tensor<2x3xi32>, tensor<4x2xi16>, tensor<i32>
func.func @argmax_argmin(%x: tensor<2x3xf32>, %v: tensor<7xi8>, %u: tensor<4x2x3xui16>, %p: tensor<5xi1>) -> (tensor<2xi32>, tensor<3xi64>, tensor<ui32>, tensor<2x3xi32>, tensor<4x2xi16>, tensor<i32>) {
  %a = jaxc.argmax %x, axis = 1 : tensor<2x3xf32> -> tensor<2xi32>
  %b = jaxc.argmin %x, axis = 0 : tensor<2x3xf32> -> tensor<3xi64>
  %c = jaxc.argmax %v, axis = 0 : tensor<7xi8> -> tensor<ui32>
  %d = jaxc.argmin %u, axis = 0 : tensor<4x2x3xui16> -> tensor<2x3xi32>
  %e = jaxc.argmax %u, axis = 2 : tensor<4x2x3xui16> -> tensor<4x2xi16>
  %f = jaxc.argmin %p, axis = 0 : tensor<5xi1> -> tensor<i32>
  return %a, %b, %c, %d, %e, %f : tensor<2xi32>, tensor<3xi64>, tensor<ui32>, tensor<2x3xi32>, tensor<4x2xi16>, tensor<i32>
}

// CHECK-LABEL: func.func @cumulative(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<5xf32>, %[[M:[a-z0-9_]+]]: tensor<2x3xi32>, %[[U:[a-z0-9_]+]]: tensor<4xui8>, %[[B:[a-z0-9_]+]]: tensor<3x2xbf16>, %[[E:[a-z0-9_]+]]: tensor<0x4xf64>) -> (tensor<5xf32>, tensor<5xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<4xui8>, tensor<3x2xbf16>, tensor<0x4xf64>)
// CHECK-NEXT: %[[SUM:[a-z0-9_]+]] = jaxc.cumulative sum %[[X]], axis = 0 : tensor<5xf32>
// CHECK-NEXT: %[[SUM_REV:[a-z0-9_]+]] = jaxc.cumulative sum %[[X]], axis = 0 reverse : tensor<5xf32>
// CHECK-NEXT: %[[PROD:[a-z0-9_]+]] = jaxc.cumulative prod %[[M]], axis = 1 : tensor<2x3xi32>
// CHECK-NEXT: %[[MAX_REV:[a-z0-9_]+]] = jaxc.cumulative max %[[M]], axis = 0 reverse : tensor<2x3xi32>
// CHECK-NEXT: %[[MIN:[a-z0-9_]+]] = jaxc.cumulative min %[[U]], axis = 0 : tensor<4xui8>
// CHECK-NEXT: %[[MAX:[a-z0-9_]+]] = jaxc.cumulative max %[[B]], axis = 1 reverse : tensor<3x2xbf16>
// CHECK-NEXT: %[[EMPTY:[a-z0-9_]+]] = jaxc.cumulative sum %[[E]], axis = 1 : tensor<0x4xf64>
// CHECK-NEXT: return %[[SUM]], %[[SUM_REV]], %[[PROD]], %[[MAX_REV]], %[[MIN]], %[[MAX]], %[[EMPTY]] : tensor<5xf32>, tensor<5xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<4xui8>, tensor<3x2xbf16>, tensor<0x4xf64>
func.func @cumulative(%x: tensor<5xf32>, %m: tensor<2x3xi32>, %u: tensor<4xui8>, %b: tensor<3x2xbf16>, %e: tensor<0x4xf64>) -> (tensor<5xf32>, tensor<5xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<4xui8>, tensor<3x2xbf16>, tensor<0x4xf64>) {
  %sum = jaxc.cumulative sum %x, axis = 0 : tensor<5xf32>
  %sum_rev = jaxc.cumulative sum %x, axis = 0 reverse : tensor<5xf32>
  %prod = jaxc.cumulative prod %m, axis = 1 : tensor<2x3xi32>
  %max_rev = jaxc.cumulative max %m, axis = 0 reverse : tensor<2x3xi32>
  %min = jaxc.cumulative min %u, axis = 0 : tensor<4xui8>
  %max = jaxc.cumulative max %b, axis = 1 reverse : tensor<3x2xbf16>
  %empty = jaxc.cumulative sum %e, axis = 1 : tensor<0x4xf64>
  return %sum, %sum_rev, %prod, %max_rev, %min, %max, %empty : tensor<5xf32>, tensor<5xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<4xui8>, tensor<3x2xbf16>, tensor<0x4xf64>
}

// CHECK-LABEL: func.func @sort_one_input(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<5xf32>, %[[M:[a-z0-9_]+]]: tensor<3x4xui32>, %[[P:[a-z0-9_]+]]: tensor<0x2xi1>) -> (tensor<5xf32>, tensor<3x4xui32>, tensor<0x2xi1>)
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = jaxc.sort(%[[X]]), dim = 0, num_keys = 1 : tensor<5xf32>
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = jaxc.sort(%[[M]]), dim = 1, num_keys = 1 stable : tensor<3x4xui32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = jaxc.sort(%[[P]]), dim = 0, num_keys = 1 : tensor<0x2xi1>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]] : tensor<5xf32>, tensor<3x4xui32>, tensor<0x2xi1>
func.func @sort_one_input(%x: tensor<5xf32>, %m: tensor<3x4xui32>, %p: tensor<0x2xi1>) -> (tensor<5xf32>, tensor<3x4xui32>, tensor<0x2xi1>) {
  %a = jaxc.sort(%x), dim = 0, num_keys = 1 : tensor<5xf32>
  %b = jaxc.sort(%m), dim = 1, num_keys = 1 stable : tensor<3x4xui32>
  %c = jaxc.sort(%p), dim = 0, num_keys = 1 : tensor<0x2xi1>
  return %a, %b, %c : tensor<5xf32>, tensor<3x4xui32>, tensor<0x2xi1>
}

// Values are permuted with their keys; with num_keys = 2 both order.
// CHECK-LABEL: func.func @sort_two_inputs(
// CHECK-SAME: %[[KEYS:[a-z0-9_]+]]: tensor<5xf32>, %[[VALS:[a-z0-9_]+]]: tensor<5xi32>, %[[K2:[a-z0-9_]+]]: tensor<2x3xbf16>, %[[V2:[a-z0-9_]+]]: tensor<2x3xi64>) -> (tensor<5xf32>, tensor<5xi32>, tensor<2x3xbf16>, tensor<2x3xi64>, tensor<5xf32>, tensor<5xi32>)
// CHECK-NEXT: %[[S:[a-z0-9_]+]]:2 = jaxc.sort(%[[KEYS]], %[[VALS]]), dim = 0, num_keys = 1 stable : tensor<5xf32>, tensor<5xi32>
// CHECK-NEXT: %[[T:[a-z0-9_]+]]:2 = jaxc.sort(%[[K2]], %[[V2]]), dim = 1, num_keys = 1 : tensor<2x3xbf16>, tensor<2x3xi64>
// CHECK-NEXT: %[[U:[a-z0-9_]+]]:2 = jaxc.sort(%[[KEYS]], %[[VALS]]), dim = 0, num_keys = 2 : tensor<5xf32>, tensor<5xi32>
// CHECK-NEXT: return %[[S]]#0, %[[S]]#1, %[[T]]#0, %[[T]]#1, %[[U]]#0, %[[U]]#1 : tensor<5xf32>, tensor<5xi32>, tensor<2x3xbf16>, tensor<2x3xi64>, tensor<5xf32>, tensor<5xi32>
func.func @sort_two_inputs(%keys: tensor<5xf32>, %vals: tensor<5xi32>, %k2: tensor<2x3xbf16>, %v2: tensor<2x3xi64>) -> (tensor<5xf32>, tensor<5xi32>, tensor<2x3xbf16>, tensor<2x3xi64>, tensor<5xf32>, tensor<5xi32>) {
  %s:2 = jaxc.sort(%keys, %vals), dim = 0, num_keys = 1 stable : tensor<5xf32>, tensor<5xi32>
  %t:2 = jaxc.sort(%k2, %v2), dim = 1, num_keys = 1 : tensor<2x3xbf16>, tensor<2x3xi64>
  %u:2 = jaxc.sort(%keys, %vals), dim = 0, num_keys = 2 : tensor<5xf32>, tensor<5xi32>
  return %s#0, %s#1, %t#0, %t#1, %u#0, %u#1 : tensor<5xf32>, tensor<5xi32>, tensor<2x3xbf16>, tensor<2x3xi64>, tensor<5xf32>, tensor<5xi32>
}

// top_k along the last axis: values of the operand's type, i32 indices, the
// last axis k long (k = 0 too); any real element type and i1.
// CHECK-LABEL: func.func @top_k(
// CHECK-NEXT: %[[V:[a-z0-9_]+]], %[[I:[a-z0-9_]+]] = jaxc.top_k %arg0, k = 3 : tensor<2x5xf32>
// CHECK-NEXT: %{{.+}}, %{{.+}} = jaxc.top_k %arg1, k = 0 : tensor<4xui8>
// CHECK-NEXT: %{{.+}}, %{{.+}} = jaxc.top_k %arg2, k = 2 : tensor<2xi1>
// CHECK-NEXT: return %[[V]], %[[I]] : tensor<2x3xf32>, tensor<2x3xi32>
func.func @top_k(%x: tensor<2x5xf32>, %y: tensor<4xui8>, %p: tensor<2xi1>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %v, %i = jaxc.top_k %x, k = 3 : tensor<2x5xf32>
  %a, %b = jaxc.top_k %y, k = 0 : tensor<4xui8>
  %c, %d = jaxc.top_k %p, k = 2 : tensor<2xi1>
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi32>
}

// hessenberg (packed, taus), schur (t, z), eig (w, vl, vr: complex) of
// batches of square f32/f64 matrices; the results are inferred.
// CHECK-LABEL: func.func @nonsymmetric(
// CHECK-NEXT: %{{.+}}, %{{.+}} = jaxc.hessenberg %arg0 : tensor<2x5x5xf32>
// CHECK-NEXT: %{{.+}}, %{{.+}} = jaxc.schur %arg1 : tensor<4x4xf64>
// CHECK-NEXT: %[[W:.+]], %{{.+}}, %[[VR:.+]] = jaxc.eig %arg0 right : tensor<2x5x5xf32>
// CHECK-NEXT: %{{.+}}, %{{.+}}, %{{.+}} = jaxc.eig %arg1 left right : tensor<4x4xf64>
// CHECK-NEXT: return %[[W]], %[[VR]] : tensor<2x5xcomplex<f32>>, tensor<2x5x5xcomplex<f32>>
func.func @nonsymmetric(%a: tensor<2x5x5xf32>, %b: tensor<4x4xf64>) -> (tensor<2x5xcomplex<f32>>, tensor<2x5x5xcomplex<f32>>) {
  %h, %taus = jaxc.hessenberg %a : tensor<2x5x5xf32>
  %t, %z = jaxc.schur %b : tensor<4x4xf64>
  %w, %vl, %vr = jaxc.eig %a right : tensor<2x5x5xf32>
  %w2, %vl2, %vr2 = jaxc.eig %b left right : tensor<4x4xf64>
  return %w, %vr : tensor<2x5xcomplex<f32>>, tensor<2x5x5xcomplex<f32>>
}
