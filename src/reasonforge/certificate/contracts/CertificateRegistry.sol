// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import "./Verifier.sol"; // generated from the circuit's verification key (reasonforge.certificate.solidity)

/// @title ReasonForge certificate registry: stores a certificate only after its Groth16 proof verifies.
/// @dev Public inputs are recomputed here from the stored fields, so the stored metadata cannot
///      disagree with what the proof attests. Layout of `packed` mirrors params.py PACK_LAYOUT.
contract CertificateRegistry {
    struct Certificate {
        bytes32 taskHash;         // sha256 of {original_query, reasoning_chain}
        bytes32 verdictCommitment; // Poseidon commitment the validators signed
        bytes32 validatorRoot;    // Poseidon Merkle root of the validator set
        uint8 domain;             // 0=mathematics, 1=code, 2=logic
        uint8 proofLevel;         // 0=formal, 1=standard, 2=quick
        uint8 totalSteps;
        uint8 verifiedSteps;
        uint8 verdict;            // 0=VERIFIED, 1=PARTIAL, 2=FAILED
        uint8 validatorCount;
        uint8 validatorThreshold;
        uint64 timestamp;
        uint64 stakeThreshold;
        address registrant;       // set by the contract to msg.sender
    }

    Groth16Verifier public immutable verifier;
    address public immutable owner;

    mapping(bytes32 => Certificate) public certificates;   // certId => certificate
    mapping(bytes32 => bytes32) public certificateOfTask;  // taskHash => certId
    mapping(bytes32 => bool) public trustedRoots;          // validator sets whose signatures count
    uint256 public totalCertificates;
    uint256 public totalVerified;

    event CertificateRegistered(
        bytes32 indexed certificateId, bytes32 indexed taskHash, uint8 verdict, uint8 verifiedSteps, uint8 totalSteps
    );
    event ValidatorRootSet(bytes32 indexed root, bool trusted);

    error CertificateExists(bytes32 certId);
    error TaskAlreadyCertified(bytes32 taskHash, bytes32 certId);
    error UntrustedValidatorRoot(bytes32 root);
    error InconsistentVerdict();
    error InvalidProof();
    error NotOwner();

    constructor(address verifier_, bytes32 initialRoot) {
        verifier = Groth16Verifier(verifier_);
        owner = msg.sender;
        trustedRoots[initialRoot] = true;
        emit ValidatorRootSet(initialRoot, true);
    }

    /// @notice Trust or distrust a validator set root (governance of who may attest).
    function setValidatorRoot(bytes32 root, bool trusted) external {
        if (msg.sender != owner) revert NotOwner();
        trustedRoots[root] = trusted;
        emit ValidatorRootSet(root, trusted);
    }

    /// @notice The four public inputs the proof must satisfy for this certificate.
    function publicInputs(Certificate calldata cert) public pure returns (uint256[4] memory input) {
        input[0] = uint256(cert.taskHash) >> 8; // top 248 bits: always a field element
        input[1] = uint256(cert.verdictCommitment);
        input[2] = uint256(cert.validatorRoot);
        input[3] = uint256(cert.verifiedSteps) | (uint256(cert.totalSteps) << 8)
            | (uint256(cert.validatorCount) << 16) | (uint256(cert.validatorThreshold) << 24)
            | (uint256(cert.timestamp) << 32) | (uint256(cert.stakeThreshold) << 96);
    }

    /// @notice Register a certificate; reverts unless the proof verifies for exactly these fields.
    function registerCertificate(
        bytes32 certId,
        Certificate calldata cert,
        uint256[2] calldata a,
        uint256[2][2] calldata b,
        uint256[2] calldata c
    ) external {
        if (certificates[certId].timestamp != 0) revert CertificateExists(certId);
        bytes32 existing = certificateOfTask[cert.taskHash];
        if (existing != bytes32(0)) revert TaskAlreadyCertified(cert.taskHash, existing);
        if (!trustedRoots[cert.validatorRoot]) revert UntrustedValidatorRoot(cert.validatorRoot);
        uint8 expected = cert.verifiedSteps == cert.totalSteps ? 0 : (cert.verifiedSteps == 0 ? 2 : 1);
        if (cert.verdict != expected || cert.timestamp == 0) revert InconsistentVerdict();
        if (!verifier.verifyProof(a, b, c, publicInputs(cert))) revert InvalidProof();

        Certificate memory stored = cert;
        stored.registrant = msg.sender;
        certificates[certId] = stored;
        certificateOfTask[cert.taskHash] = certId;
        totalCertificates++;
        if (cert.verdict == 0) totalVerified++;
        emit CertificateRegistered(certId, cert.taskHash, cert.verdict, cert.verifiedSteps, cert.totalSteps);
    }

    /// @notice True if the task has a registered certificate whose verdict is VERIFIED.
    function isVerified(bytes32 taskHash) external view returns (bool) {
        bytes32 certId = certificateOfTask[taskHash];
        return certId != bytes32(0) && certificates[certId].verdict == 0;
    }

    /// @notice True if the certificate was registered (its proof verified on registration).
    function verifyCertificate(bytes32 certId) external view returns (bool) {
        return certificates[certId].timestamp != 0;
    }
}
