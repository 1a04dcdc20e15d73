// Planted: resp/ is below server/ and may not include it.
#pragma once

#include "engine/server/engine.h"
