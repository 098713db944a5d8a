'use strict';
(function () {
  const hwt = window.hwt;
  hwt.renderSpe = function () {};
  hwt.renderSpeOverview = function () {};
})();
