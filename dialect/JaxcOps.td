// Root of the jaxc ODS: every op family.
#ifndef JAXC_OPS_TD
#define JAXC_OPS_TD

include "JaxcBase.td"
include "ElementwiseOps.td"
include "ShapeOps.td"
include "ReductionOps.td"
include "ControlFlowOps.td"
include "MiscOps.td"

#endif // JAXC_OPS_TD
